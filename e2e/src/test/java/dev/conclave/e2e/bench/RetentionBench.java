package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

/**
 * What conversation retention costs live traffic (a program, not a test). One node as GatewayBench
 * starts it, on a PostgreSQL the benchmark starts (durable, as the node's own), the node's retention
 * on a 30-day window checking every {@code bench.interval} seconds with the default batch. First the
 * data growth of GatewayBench's workload (bytes on disk per round trip, {@link DiskGrowth}); then an
 * old ledger of {@code bench.events} events is seeded past the window ({@link LedgerSeed}) and the
 * workload runs in alternating phases: A with retention held off (the benchmark holds the worker's
 * lock), B with retention deleting the old ledger, {@code bench.pairs} pairs; then B phases until
 * the ledger is gone, and a last A phase after it. Parameters: {@link BenchSettings} and
 * {@code bench.events} (5000000), {@code bench.pairs} (3), {@code bench.phaseSeconds} (20),
 * {@code bench.phaseWarmup} (3), {@code bench.growthSeconds} (20), {@code bench.interval} (1),
 * {@code bench.purgeLimitMinutes} (90). The warm-up of {@code BenchSettings} warms the node before
 * anything is measured.
 */
public final class RetentionBench {

  private static final int KEEP = 50;

  private RetentionBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(RetentionBench.class, () -> runBench(args));
  }

  /** One measured phase. */
  record Phase(String name, boolean retention, Recorder.Result result, double eventsPerSecond, double requestsPerSecond, double[] lockWaits) {
  }

  private static void runBench(String[] args) throws Exception {
    BenchSettings s = BenchSettings.from(args, System.getProperties());
    long events = Long.getLong("bench.events", 5_000_000);
    int pairs = Integer.getInteger("bench.pairs", 3);
    Duration phase = Duration.ofSeconds(Integer.getInteger("bench.phaseSeconds", 20));
    Duration phaseWarmup = Duration.ofSeconds(Integer.getInteger("bench.phaseWarmup", 3));
    Duration growth = Duration.ofSeconds(Integer.getInteger("bench.growthSeconds", 20));
    int interval = Integer.getInteger("bench.interval", 1);
    Duration purgeLimit = Duration.ofMinutes(Integer.getInteger("bench.purgeLimitMinutes", 90));
    System.out.printf(Locale.ROOT, "bench: %s events=%d pairs=%d phaseSeconds=%d phaseWarmup=%d growthSeconds=%d interval=%ds%n", s, events,
      pairs, phase.toSeconds(), phaseWarmup.toSeconds(), growth.toSeconds(), interval);
    Path root = Files.createTempDirectory("conclave-retention-bench");
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(root.resolve("bench-pg"), 0,
      Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on"))) {
      TestDatabase.execute(pg.url(), "CREATE DATABASE gateway_bench");
      Pool pool = PgPools.create(vertx, pg.url().withDatabase("gateway_bench"), 4, 100);
      Map<String, String> env = Map.of(
        "CONCLAVE_CONVERSATION_RETENTION_DAYS", "30",
        "CONCLAVE_REQUEST_RETENTION_DAYS", "30",
        "CONCLAVE_CONVERSATION_KEEP_EVENTS", String.valueOf(KEEP),
        "CONCLAVE_RETENTION_INTERVAL_SECONDS", String.valueOf(interval));
      DiskGrowth.Snapshot[] beforeAgents = new DiskGrowth.Snapshot[1];
      PurgeWatch[] watch = {new PurgeWatch(pool)};
      try (GatewayRig rig = GatewayRig.start(vertx, s, root.resolve("data"), Optional.of(pg), env, false,
        () -> beforeAgents[0] = DiskGrowth.take(pool))) {
        DiskGrowth.Snapshot registered = DiskGrowth.take(pool);
        rig.measure("warm-up", Duration.ZERO, s.warmup(), () -> { }, new HashMap<>());
        DiskGrowth.Snapshot beforeGrowth = DiskGrowth.take(pool);
        Recorder.Result grown = rig.measure("data growth", Duration.ZERO, growth, () -> { }, new HashMap<>());
        DiskGrowth.Snapshot afterGrowth = DiskGrowth.take(pool);
        if (grown.errors() > 0) {
          throw new IllegalStateException("data growth phase: " + grown.errors() + " requests failed");
        }

        LedgerSeed seed = LedgerSeed.write(pool, events, KEEP, s.agents());
        watch[0].watch(rig.node().httpPort(), seed.deletableEvents(), seed.deletableRequests());
        List<Phase> phases = phases(rig, watch[0], pairs, phaseWarmup, phase, purgeLimit);

        DiskGrowth.print("agent registration", beforeAgents[0], registered, s.agents(), "agent");
        DiskGrowth.print("data growth", beforeGrowth, afterGrowth, afterGrowth.requests() - beforeGrowth.requests(), "round trip");
        DiskGrowth.printPerDay(beforeGrowth, afterGrowth);
        print(s, seed, phases, watch[0]);
        check(phases);
      } finally {
        if (watch[0] != null) {
          watch[0].close();
        }
        Await.await(pool.close(), Duration.ofSeconds(30), "pool close");
      }
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
      TestDatabase.deleteTree(root);
    }
  }

  /** A/B pairs, then B until the seeded ledger is gone, then A once more. */
  private static List<Phase> phases(GatewayRig rig, PurgeWatch watch, int pairs, Duration warmup, Duration measure, Duration purgeLimit) {
    List<Phase> phases = new ArrayList<>();
    for (int i = 1; i <= pairs; i++) {
      phases.add(phase(rig, watch, "A" + i + " retention off", false, warmup, measure));
      phases.add(phase(rig, watch, "B" + i + " retention on", true, warmup, measure));
    }
    int rest = 0;
    while (watch.purgeSeconds() < 0) {
      if (watch.releasedSeconds() > purgeLimit.toSeconds()) {
        throw new IllegalStateException("retention did not delete the seeded ledger within " + purgeLimit.toMinutes() + " min: " + watch.deleted());
      }
      phases.add(phase(rig, watch, "B+" + ++rest + " retention on", true, warmup, measure));
    }
    phases.add(phase(rig, watch, "A after purge", false, warmup, measure));
    return phases;
  }

  private static Phase phase(GatewayRig rig, PurgeWatch watch, String name, boolean retention, Duration warmup, Duration measure) {
    if (retention) {
      watch.release();
    } else {
      watch.hold();
    }
    Map<String, Double>[] start = new Map[1];
    long[] startNanos = new long[1];
    Recorder.Result r = rig.measure(name, warmup, measure, () -> {
      start[0] = watch.deleted();
      startNanos[0] = System.nanoTime();
      watch.takeLockWaits();
    }, new HashMap<>());
    Map<String, Double> end = watch.deleted();
    double seconds = (System.nanoTime() - startNanos[0]) / 1e9;
    double[] lockWaits = watch.takeLockWaits();
    double ev = (end.getOrDefault("events", 0.0) - start[0].getOrDefault("events", 0.0)) / seconds;
    double rq = (end.getOrDefault("requests", 0.0) - start[0].getOrDefault("requests", 0.0)) / seconds;
    System.out.printf(Locale.ROOT, "bench: %s: %.1f round trips/s, p50 %.2f ms, p99 %.2f ms; retention deleted %.0f events/s, %.0f requests/s "
      + "(in total %s); backends waiting for a lock: %.2f on average, %.0f at most%n", name, r.requestsPerSecond(), r.p50(), r.p99(), ev, rq,
      end, lockWaits[0], lockWaits[1]);
    return new Phase(name, retention, r, ev, rq, lockWaits);
  }

  private static void print(BenchSettings s, LedgerSeed seed, List<Phase> phases, PurgeWatch watch) {
    System.out.printf(Locale.ROOT, "%n%d agents, %d clients (one request in flight each), %d text chunks + done per request; old ledger: %d "
        + "events to delete (%d requests) in %d conversations%n", s.agents(), s.clients(), s.chunks(), seed.deletableEvents(),
      seed.deletableRequests(), seed.conversations());
    String header = String.format(Locale.ROOT, "%-22s %9s %9s %8s %8s %8s %7s %12s %12s %10s", "phase", "requests", "req/s", "p50 ms",
      "p99 ms", "max ms", "errors", "events del/s", "requests del/s", "lock waits");
    System.out.println(header);
    System.out.println("-".repeat(header.length()));
    for (Phase p : phases) {
      Recorder.Result r = p.result();
      System.out.printf(Locale.ROOT, "%-22s %9d %9.1f %8.2f %8.2f %8.2f %7d %12.0f %12.0f %10.2f%n", p.name(), r.requests(),
        r.requestsPerSecond(), r.p50(), r.p99(), r.max(), r.errors(), p.eventsPerSecond(), p.requestsPerSecond(), p.lockWaits()[0]);
    }
    double purge = watch.purgeSeconds();
    System.out.printf(Locale.ROOT, "%nretention deleted the old ledger (%d events, %d requests) in %.0f s of running: %.0f events/s on "
      + "average (the cancelled batch at each switch to A included)%n", seed.deletableEvents(), seed.deletableRequests(), purge,
      seed.deletableEvents() / purge);
    System.out.println("lock waits: backends of the node's database waiting for a lock (pg_stat_activity, sampled every 250 ms), mean.");
  }

  /** The node must have served every request in every phase. */
  private static void check(List<Phase> phases) {
    for (Phase p : phases) {
      if (p.result().errors() > 0 || p.result().requests() == 0) {
        throw new IllegalStateException(p.name() + ": " + p.result().requests() + " requests, " + p.result().errors() + " errors");
      }
    }
  }
}
