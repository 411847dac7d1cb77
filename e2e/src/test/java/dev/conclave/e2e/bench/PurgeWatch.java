package dev.conclave.e2e.bench;

import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

/**
 * Turns the node's gateway retention worker off and on without restarting the node: while the
 * benchmark holds the worker's advisory lock the node's runs skip; to take it back the benchmark
 * cancels the batch running (the worker ends its run and unlocks). Once a second it reads what
 * retention deleted from the node's metrics, the lock waits in PostgreSQL, and while retention may
 * run, how long it has been allowed to, so it knows when the seeded ledger was all gone.
 */
final class PurgeWatch implements AutoCloseable {

  private static final Duration TAKE_BACK_LIMIT = Duration.ofSeconds(120);

  private final SqlConnection lock;
  private final Pool pool;
  private int metricsPort;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "purge-watch");
    t.setDaemon(true);
    return t;
  });
  private long targetEvents;
  private long targetRequests;
  private boolean held;
  private long releasedAt;
  private long releasedNanos;
  private long doneAfterNanos = -1;
  private long lockSamples;
  private long lockWaits;
  private long maxLockWaits;

  /** Takes the worker's lock before the node starts, so that nothing is deleted until {@link #release}. */
  PurgeWatch(Pool pool) {
    this.pool = pool;
    this.lock = Await.await(pool.getConnection(), Duration.ofSeconds(30), "lock connection");
    hold();
  }

  /** Starts watching the node's metrics for the seeded ledger's end: {@code targetEvents} and {@code targetRequests} deleted. */
  void watch(int metricsPort, long targetEvents, long targetRequests) {
    synchronized (this) {
      this.metricsPort = metricsPort;
      this.targetEvents = targetEvents;
      this.targetRequests = targetRequests;
    }
    ticks.scheduleWithFixedDelay(this::tick, 250, 250, TimeUnit.MILLISECONDS);
  }

  /** Holds the worker's lock, cancelling the batch running until the run ends and lets go of it. */
  void hold() {
    long limit = System.nanoTime() + TAKE_BACK_LIMIT.toNanos();
    if (held) {
      return;
    }
    while (!BenchDb.row(lock, "TryLock").getBoolean("locked")) {
      if (System.nanoTime() > limit) {
        throw new IllegalStateException("the retention worker kept its lock for " + TAKE_BACK_LIMIT.toSeconds() + " s");
      }
      BenchDb.row(pool, "CancelRetention");
      GatewayRig.sleep(Duration.ofMillis(100));
    }
    synchronized (this) {
      if (!held && releasedAt != 0) {
        releasedNanos += System.nanoTime() - releasedAt;
      }
      held = true;
    }
  }

  /** Lets the node's worker run (its next run starts within its interval). */
  void release() {
    if (!held) {
      return;
    }
    if (!BenchDb.row(lock, "Unlock").getBoolean("unlocked")) {
      throw new IllegalStateException("the benchmark did not hold the retention lock it released");
    }
    synchronized (this) {
      held = false;
      releasedAt = System.nanoTime();
    }
  }

  /** Rows retention deleted so far, by kind ({@code events}, {@code requests}), from the node's metrics. */
  Map<String, Double> deleted() {
    Map<String, Double> out = new HashMap<>();
    try {
      HttpResponse<String> metrics = http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).get(15, TimeUnit.SECONDS);
      metrics.body().lines().filter(l -> l.startsWith("conclave_retention_rows_deleted_total{")).forEach(l -> {
        String kind = l.replaceAll(".*kind=\"([^\"]*)\".*", "$1");
        out.merge(kind, Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)), Double::sum);
      });
    } catch (Exception e) {
      throw new IllegalStateException("node metrics not read: " + e, e);
    }
    return out;
  }

  /** Seconds retention was allowed to run until the seeded ledger was gone, or -1 if it is not yet. */
  synchronized double purgeSeconds() {
    return doneAfterNanos < 0 ? -1 : doneAfterNanos / 1e9;
  }

  /** Seconds retention has been allowed to run so far. */
  synchronized double releasedSeconds() {
    return (releasedNanos + (held || releasedAt == 0 ? 0 : System.nanoTime() - releasedAt)) / 1e9;
  }

  /** Mean and most backends waiting for a lock since the last call, and starts counting again. */
  synchronized double[] takeLockWaits() {
    double[] out = {lockSamples == 0 ? 0 : (double) lockWaits / lockSamples, maxLockWaits};
    lockSamples = 0;
    lockWaits = 0;
    maxLockWaits = 0;
    return out;
  }

  private void tick() {
    try {
      Row activity = BenchDb.row(pool, "Activity");
      long waits = activity.getLong("lock_waits");
      boolean check;
      synchronized (this) {
        lockSamples++;
        lockWaits += waits;
        maxLockWaits = Math.max(maxLockWaits, waits);
        check = doneAfterNanos < 0 && !held && releasedAt != 0;
      }
      if (check) {
        Map<String, Double> d = deleted();
        if (d.getOrDefault("events", 0.0) >= targetEvents && d.getOrDefault("requests", 0.0) >= targetRequests) {
          synchronized (this) {
            doneAfterNanos = releasedNanos + System.nanoTime() - releasedAt;
          }
        }
      }
    } catch (RuntimeException e) {
      System.err.println("bench: purge watch: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    ticks.shutdownNow();
    Await.await(lock.close(), Duration.ofSeconds(30), "lock connection close");
  }
}
