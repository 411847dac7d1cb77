package dev.conclave.gateway.mailbox;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The requests waiting for their agent (state {@code queued}: sent, not yet taken by an agent
 * session) as two gauges: how many wait ({@value MetricNames#GATEWAY_REQUESTS_WAITING}) and how long
 * the oldest has waited ({@value MetricNames#GATEWAY_REQUESTS_OLDEST_WAITING}, growing between
 * reads). The ledger writer's queue is in this node's memory; this one is the cluster's mailbox in
 * PostgreSQL, so every gateway node reports the same numbers (alert rules take their maximum).
 *
 * <p>Read on a timer, not at scrape time: a scrape must not wait for the database (as
 * {@code HealthMetrics}). One read at a time: a read still running when the timer fires again is not
 * doubled, and one that has not answered when its values would be stale counts as failed. A failed
 * read is logged (once, when reads start failing) and never thrown out of the timer. The gauges keep
 * the last values read only while they are fresh: once the last successful read is older than
 * {@value #FRESH_READS} intervals (45 s at 15 s), or before the first, both show NaN (unknown), so a
 * dashboard shows a gap rather than a number that no longer moves, and the age alert neither fires
 * nor resolves on it; {@code ConclaveDatabaseUnreachable} says why.
 */
public final class WaitingRequests {

  /** How often the gauges are read from PostgreSQL in production. */
  public static final Duration INTERVAL = Duration.ofSeconds(15);
  /** How many intervals a successful read stays shown; a single failed read does not blank the gauges. */
  static final int FRESH_READS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(WaitingRequests.class);
  private static final SqlFile SQL = SqlFile.of(WaitingRequests.class, "waiting_requests.sql");

  /** One successful read: its values and when it completed ({@link System#nanoTime()}). */
  private record Reading(long waiting, double oldestSeconds, long atNanos) {
  }

  private final Vertx vertx;
  private final Pool pool;
  private final Duration interval;
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile Reading last;
  private volatile boolean failing;
  private volatile long timer = -1;

  public WaitingRequests(Vertx vertx, Pool pool, Duration interval) {
    this.vertx = vertx;
    this.pool = pool;
    this.interval = interval;
  }

  /** Registers the two gauges in {@code registry}. */
  public WaitingRequests register(MeterRegistry registry) {
    Gauge.builder(MetricNames.GATEWAY_REQUESTS_WAITING, this, WaitingRequests::waiting)
      .description("requests waiting for their agent, cluster-wide").strongReference(true).register(registry);
    Gauge.builder(MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING, this, WaitingRequests::oldestSeconds)
      .description("how long the oldest request waiting for its agent has waited").strongReference(true).register(registry);
    return this;
  }

  /** Reads now, then every interval, until {@link #stop()}. */
  public void start() {
    timer = vertx.setPeriodic(1, interval.toMillis(), id -> read());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** One read, unless one is still running; its failure is logged, not returned. */
  Future<Void> read() {
    if (!reading.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    Future<Void> read;
    try {
      // a read that hangs (the database unreachable, a lost connection) counts as failed once the
      // values it would refresh are stale, so that the next read may start
      read = SQL.get("Waiting").execute(pool).timeout(interval.multipliedBy(FRESH_READS).toMillis(), TimeUnit.MILLISECONDS).map(rows -> {
        Row row = rows.iterator().next();
        last = new Reading(row.getLong("waiting"), row.getDouble("oldest_seconds"), System.nanoTime());
        if (failing) {
          failing = false;
          LOG.info("gateway: reading the requests waiting for their agents works again");
        }
        return null;
      });
    } catch (RuntimeException e) {
      read = Future.failedFuture(e);
    }
    return read.recover(err -> {
      if (!failing) {
        failing = true;
        LOG.warn("gateway: reading the requests waiting for their agents failed (the gauges show NaN once the last read is {} ms old) error={}",
          interval.multipliedBy(FRESH_READS).toMillis(), err.getMessage());
      }
      return Future.succeededFuture();
    }).onComplete(ar -> reading.set(false));
  }

  /** How many requests waited at the last read; NaN when that read is not fresh. */
  double waiting() {
    Reading r = last;
    return fresh(r) ? r.waiting() : Double.NaN;
  }

  /**
   * How long the oldest waiting request has waited: its age at the last read plus the time since
   * (measured on this node's monotonic clock), so it grows between reads; 0 when none waited; NaN
   * when the last read is not fresh.
   */
  double oldestSeconds() {
    Reading r = last;
    if (!fresh(r)) {
      return Double.NaN;
    }
    return r.waiting() == 0 ? 0 : r.oldestSeconds() + (System.nanoTime() - r.atNanos()) / 1e9;
  }

  private boolean fresh(Reading r) {
    return r != null && System.nanoTime() - r.atNanos() <= interval.multipliedBy(FRESH_READS).toNanos();
  }
}
