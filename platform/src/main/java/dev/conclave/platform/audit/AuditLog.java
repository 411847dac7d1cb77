package dev.conclave.platform.audit;

import dev.conclave.platform.db.BatchWriter;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Writes the audit log ({@code auth.audit}). Recording never holds the audited call up: entries are
 * written in batches ({@link BatchWriter}); an entry that cannot be kept is counted and logged. Old
 * entries are deleted after the retention.
 */
public final class AuditLog {

  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  static final int MAX_QUEUED = 50_000;
  static final int BATCH = 500;
  static final long FLUSH_MS = 250;
  static final long RETENTION_SWEEP_MS = 3_600_000;
  static final int MAX_TEXT = 1000;

  private final Pool pool;
  private final String node;
  private final BatchWriter<AuditEvent> writer;

  public AuditLog(Pool pool, String node, MeterRegistry metrics) {
    this.pool = pool;
    this.node = node;
    this.writer = new BatchWriter<>("audit entries", MAX_QUEUED, BATCH, this::insert, metrics.counter(MetricNames.AUDIT_ENTRIES_LOST));
  }

  /** Starts the batch writer and the retention sweep. */
  public void start(Vertx vertx, Duration retention) {
    writer.start(vertx, FLUSH_MS);
    vertx.setPeriodic(RETENTION_SWEEP_MS, t -> pool.preparedQuery("DELETE FROM auth.audit WHERE at < now() - $1::interval")
      .execute(Tuple.of(retention.toDays() + " days"))
      .onFailure(err -> LOG.warn("audit: retention sweep failed error={}", err.getMessage())));
  }

  public void record(AuditEvent event) {
    writer.add(event);
  }

  /** Writes what is queued; also before the node stops. */
  public Future<Void> flush() {
    return writer.flush();
  }

  private Future<Void> insert(List<AuditEvent> events) {
    int n = events.size();
    UUID[] actors = new UUID[n];
    String[] types = new String[n];
    String[] actions = new String[n];
    String[] targets = new String[n];
    String[] outcomes = new String[n];
    String[] details = new String[n];
    String[] remotes = new String[n];
    for (int i = 0; i < n; i++) {
      AuditEvent e = events.get(i);
      actors[i] = e.actorId().orElse(null);
      types[i] = e.actorType();
      actions[i] = cut(e.action());
      targets[i] = cut(e.target());
      outcomes[i] = e.outcome().wire();
      details[i] = e.detail() == null || e.detail().isEmpty() ? null : cut(e.detail());
      remotes[i] = cut(e.remote());
    }
    return pool.preparedQuery("INSERT INTO auth.audit (actor_id, actor_type, action, target, outcome, detail, remote, node)"
        + " SELECT a, t, ac, tg, o, d, r, $8 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])"
        + " AS x(a, t, ac, tg, o, d, r)")
      .execute(Tuple.from(new Object[] {actors, types, actions, targets, outcomes, details, remotes, node}))
      .mapEmpty();
  }

  private static String cut(String s) {
    return s == null ? "" : s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT);
  }
}
