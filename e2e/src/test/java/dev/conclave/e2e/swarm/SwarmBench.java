package dev.conclave.e2e.swarm;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import io.micrometer.core.instrument.DistributionSummary;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Swarm coordinator benchmark (a program, not a test). In one run, on one PostgreSQL database:
 * <ol>
 *   <li>the raw rate of the bare single-statement SKIP LOCKED claim (JDBC, autocommit) over N tasks,
 *       with 8 and with M connections;</li>
 *   <li>claim+complete throughput of M agents through the coordinator's HTTP API over N fresh tasks;</li>
 *   <li>the floor ({@link BareClaims}): the same agents against a bare HTTP server that only runs the
 *       two UPDATEs, batched as the node batches, over N fresh tasks, after warm-up rounds of its own
 *       (unless {@code -Dswarm.bench.floor=false});</li>
 *   <li>the raw claims of 1. again, right after 2. and 3.: the target compares 2. with the best of all
 *       four raw phases, and the two sets bracket the measured phases against the machine's changing
 *       speed.</li>
 * </ol>
 * PostgreSQL is a fresh embedded server with durable settings (fsync and synchronous_commit on, as a
 * production server), unless {@code -Dswarm.bench.durable=false}. Everything runs on 127.0.0.1 in this
 * JVM except PostgreSQL. Bounded: at most N tasks per phase and {@code swarm.bench.seconds} per phase.
 * Properties: swarm.bench.tasks (10000), swarm.bench.agents (64), swarm.bench.seconds (60),
 * swarm.bench.durable (true), swarm.bench.warmup (60000: tasks claimed and completed over HTTP before
 * the measured phase, on tasks of their own, in rounds of N prepared as the measured phase is, each
 * with its CPU split; 0 for none. It was 5000, then 20000 in one round, until the split per round
 * showed the JIT compiler still busy in the measured phase; it settles after about 40000 in rounds),
 * swarm.bench.process (false: the node runs in this JVM; true: in a process of its own, the node jar
 * with the coordinator role, as a deployment runs it, so that its JIT compiler profiles only the node).
 */
public final class SwarmBench {

  /** {@code -Dswarm.bench.statements=true}: also load pg_stat_statements and print where statement time goes. */
  private static final boolean STATEMENTS = Boolean.getBoolean("swarm.bench.statements");
  /** {@code -Dswarm.bench.plans=true}: also load auto_explain and print the plans of the claim+complete phase. */
  private static final boolean PLANS = Boolean.getBoolean("swarm.bench.plans");
  /** {@code -Dswarm.bench.process=true}: the node in a process of its own. */
  private static final boolean PROCESS = Boolean.getBoolean("swarm.bench.process");
  /** {@code -Dswarm.bench.floor=false}: leave out the floor ({@link BareClaims}). */
  private static final boolean FLOOR = Boolean.parseBoolean(System.getProperty("swarm.bench.floor", "true"));
  private static final int FLOOR_WARMUP_ROUNDS = 3;

  private SwarmBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(SwarmBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    int tasks = Integer.getInteger("swarm.bench.tasks", 10_000);
    int agents = Integer.getInteger("swarm.bench.agents", 64);
    Duration budget = Duration.ofSeconds(Long.getLong("swarm.bench.seconds", 60));
    boolean durable = Boolean.parseBoolean(System.getProperty("swarm.bench.durable", "true"));
    Path dir = Files.createTempDirectory("swarm-bench");
    Map<String, String> pgSettings = new java.util.HashMap<>(durable
      ? Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on")
      : Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off"));
    // where PostgreSQL's time goes, per swarm function (PgFunctionTimes)
    pgSettings.put("track_functions", "pl");
    List<String> libraries = new ArrayList<>();
    if (STATEMENTS) {
      libraries.add("pg_stat_statements");
      pgSettings.put("pg_stat_statements.track", "all");
      pgSettings.put("pg_stat_statements.track_planning", "on");
    }
    if (PLANS) {
      libraries.add("auto_explain");
      pgSettings.putAll(PgPlans.settings(pgLog(dir.resolve("pg"))));
    }
    if (!libraries.isEmpty()) {
      pgSettings.put("shared_preload_libraries", String.join(",", libraries));
    }
    System.out.printf(Locale.ROOT, "swarm bench: tasks=%d agents=%d budget=%ds postgres=%s cores=%d%n", tasks, agents,
      budget.toSeconds(), durable ? "durable (fsync=on, synchronous_commit=on)" : "fsync=off, synchronous_commit=off",
      Runtime.getRuntime().availableProcessors());
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, pgSettings);
    try {
      TestDatabase.execute(pg.url(), "CREATE DATABASE swarm_bench");
      PgUrl db = pg.url().withDatabase("swarm_bench");
      Map<String, String> env = new java.util.LinkedHashMap<>();
      env.put("CONCLAVE_SWARM_RATE_LIMITS", "false");
      env.put("CONCLAVE_SWARM_FILE_TRANSPORT", "false");
      env.put("CONCLAVE_PG_POOL_SIZE", "16");
      // extra node settings, e.g. -Dswarm.bench.env=CONCLAVE_SWARM_BATCH_IN_FLIGHT=1,CONCLAVE_EDGE_INSTANCES=1
      for (String pair : System.getProperty("swarm.bench.env", "").split(",")) {
        if (pair.contains("=")) {
          env.put(pair.substring(0, pair.indexOf('=')).trim(), pair.substring(pair.indexOf('=') + 1).trim());
        }
      }
      if (PROCESS) {
        env.put("CONCLAVE_ROLES", "coordinator");
        env.put("CONCLAVE_PG_URL", db.full());
        try (NodeProcess node = NodeProcess.start(dir.resolve("node"), env)) {
          node.awaitReady(Duration.ofSeconds(120));
          System.out.println("swarm bench: the node runs in a process of its own (pid " + node.pid() + ")");
          String token = Files.readString(node.dataDir().resolve("admin.token")).trim();
          HttpClaimers http = new HttpClaimers(node.httpPort(), token, agents);
          try {
            run(new NodeSide(Optional.of(node.pid()), () -> scrapedBatches(http)), db, http, tasks, agents, budget, dir.resolve("pg"), env);
          } finally {
            http.close();
          }
        }
      } else {
        TestNode.Builder builder = TestNode.builder().role(new CoordinatorRole()).database(db).dataDir(dir.resolve("node"));
        env.forEach(builder::env);
        builder.env("CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next())).env("CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()));
        try (TestNode node = builder.start()) {
          HttpClaimers http = new HttpClaimers(node.httpPort(), node.adminToken(), agents);
          try {
            run(new NodeSide(Optional.empty(), () -> {
              DistributionSummary batches = node.runtime().context().metrics().find(MetricNames.SWARM_BATCH_SIZE).summary();
              return batches == null ? new double[] {0, 0} : new double[] {batches.count(), batches.totalAmount()};
            }), db, http, tasks, agents, budget, dir.resolve("pg"), env);
          } finally {
            http.close();
          }
        }
      }
    } finally {
      pg.close();
      TestDatabase.deleteTree(dir);
    }
  }

  /**
   * The node as the benchmark sees it: its process when it has one of its own, and how many statements
   * it sent and how many requests they carried ({count, sum} of the batch-size metric).
   */
  private record NodeSide(Optional<Long> pid, java.util.function.Supplier<double[]> batches) {
  }

  /** The batch-size metric's count and sum, from the node's /metrics (Prometheus text). */
  private static double[] scrapedBatches(HttpClaimers http) {
    try {
      String text = http.get("/metrics").await(30, TimeUnit.SECONDS);
      double[] out = {0, 0};
      for (String line : text.split("\n")) {
        if (line.startsWith(MetricNames.SWARM_BATCH_SIZE + "_count")) {
          out[0] = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        } else if (line.startsWith(MetricNames.SWARM_BATCH_SIZE + "_sum")) {
          out[1] = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return out;
    } catch (Exception e) {
      throw new IllegalStateException("could not read the node's metrics", e);
    }
  }

  private static void run(NodeSide node, PgUrl db, HttpClaimers http, int tasks, int agents, Duration budget, Path pgDir,
                          Map<String, String> env) throws Exception {
    List<RawClaims.Result> before = rawPhases("before", node, db, http, tasks, agents, budget, pgDir);

    List<String> ids = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      ids.add("bench-agent-" + i);
      JsonObject agent = new JsonObject().put("id", "bench-agent-" + i).put("name", "bench " + i).put("type", "custom")
        .put("capabilities", new JsonObject().put("skills", new JsonArray()));
      int status = http.post("/api/v1/agents/register", new JsonObject().put("protocolVersion", "1.0").put("agent", agent))
        .await(30, TimeUnit.SECONDS).statusCode();
      if (status != 200) {
        throw new IllegalStateException("register failed: " + status);
      }
    }
    // The node's JIT compiler warms up on tasks of its own, in rounds of the measured phase's size, each
    // prepared as the measured phase is (its tasks created in bodies of 1,000, VACUUM, a scrape of the
    // node's metrics): a warm-up of claims alone left those paths cold, and the first large POST body
    // after it sent the HTTP server's compiled code back to the interpreter during the measured phase.
    int warmup = Integer.getInteger("swarm.bench.warmup", 60_000);
    for (int round = 0, done = 0; done < warmup; round++) {
      int size = Math.min(tasks, warmup - done);
      prepareRound(http, db, node, "warm" + round, size);
      CpuSplit warmCpu = CpuSplit.start(pgDir, node.pid());
      HttpClaimers.Result warm = http.run(ids, size, budget);
      System.out.printf(Locale.ROOT, "http claim+complete warm-up %d (not measured): %d tasks in %d ms = %.0f tasks/s%n",
        round + 1, warm.completed(), warm.took().toMillis(), warm.perSecond());
      warmCpu.print("warm-up " + (round + 1), warm.completed(), http.threads());
      done += size;
    }
    double[] batchesBefore = prepareRound(http, db, node, "http", tasks);
    PgFunctionTimes.reset(db, STATEMENTS);
    long plansFrom = PLANS ? PgPlans.mark(pgLog(pgDir)) : 0;
    CpuSplit cpu = CpuSplit.start(pgDir, node.pid());
    HttpClaimers.Result result = http.run(ids, tasks, budget);
    BenchMain.requireCompleted("tasks claimed and completed over HTTP", result.completed());
    cpu.print("claim+complete", result.completed(), http.threads());
    double[] batchesAfter = node.batches().get();
    double statements = batchesAfter[0] - batchesBefore[0];
    double requests = batchesAfter[1] - batchesBefore[1];
    System.out.printf(Locale.ROOT, "http claim+complete, %d agents: %d tasks in %d ms = %.0f tasks/s (%.0f requests/s), "
        + "%d empty claims, %.1f requests per statement%n", agents, result.completed(), result.took().toMillis(),
      result.perSecond(), 2 * result.perSecond(), result.emptyClaims(), statements == 0 ? 0 : requests / statements);
    System.out.println("PostgreSQL time by swarm function during claim+complete (track_functions = pl):");
    PgFunctionTimes.print(db, result.completed(), 16);
    rateLimitCost(db);
    if (STATEMENTS) {
      System.out.println("PostgreSQL statements by execution time during claim+complete (pg_stat_statements, track = all):");
      PgFunctionTimes.printStatements(db, result.completed(), 25);
    }
    if (PLANS) {
      System.out.println("PostgreSQL plans during claim+complete (auto_explain, 1 % of statements, nested ones included):");
      PgPlans.print(pgLog(pgDir), plansFrom, 14);
    }
    Optional<HttpClaimers.Result> floor = FLOOR
      ? Optional.of(floor(node, db, http, ids, tasks, budget, pgDir, env)) : Optional.empty();
    // The raw claims again, after the claim+complete phase (and after its breakdown, which they would
    // add to): this machine's speed changes from minute to minute, and the raw claims before ran minutes
    // earlier, before the warm-up. The target is against the best of all four.
    List<RawClaims.Result> after = rawPhases("after", node, db, http, tasks, agents, budget, pgDir);
    double bestBefore = best(before);
    double bestAfter = best(after);
    System.out.printf(Locale.ROOT, "http claim+complete vs best raw claim rate: %.2fx (%.2fx of the best before the warm-up, "
      + "%.2fx of the best right after)%n", result.perSecond() / Math.max(bestBefore, bestAfter),
      result.perSecond() / bestBefore, result.perSecond() / bestAfter);
    floor.ifPresent(f -> System.out.printf(Locale.ROOT, "floor (bare HTTP and the two bare UPDATEs) vs best raw claim rate: %.2fx "
        + "(%.2fx of the best before, %.2fx of the best after); the coordinator reaches %.2f of the floor%n",
      f.perSecond() / Math.max(bestBefore, bestAfter), f.perSecond() / bestBefore, f.perSecond() / bestAfter,
      result.perSecond() / f.perSecond()));
  }

  /**
   * The floor ({@link BareClaims}): the same agents and load generator against the same endpoints of a
   * bare HTTP server that only runs the two UPDATEs, batched as the node batches, over N fresh tasks,
   * after warm-up rounds of its own; with its CPU split ("node" is the floor's server here).
   */
  private static HttpClaimers.Result floor(NodeSide node, PgUrl db, HttpClaimers http, List<String> agents, int tasks,
                                           Duration budget, Path pgDir, Map<String, String> env) throws Exception {
    int port = FreePorts.next();
    int instances = NodeSettings.EDGE_INSTANCES.get(env);
    try (BareClaims bare = BareClaims.start(db, port, instances, NodeSettings.PG_POOL_SIZE.get(env))) {
      HttpClaimers client = new HttpClaimers(port, "unused", agents.size());
      try {
        HttpClaimers.Result result = null;
        // (its own warm-up: its code is small, but one round left its JIT compiler busy in the measured one)
        for (int round = 1; round <= FLOOR_WARMUP_ROUNDS + 1; round++) {
          boolean measured = round > FLOOR_WARMUP_ROUNDS;
          prepareRound(http, db, node, "floor" + round, tasks);
          CpuSplit cpu = CpuSplit.start(pgDir, Optional.empty());
          result = client.run(agents, tasks, budget);
          String phase = measured ? "the floor" : "the floor's warm-up " + round;
          System.out.printf(Locale.ROOT, "floor claim+complete%s, %d agents, %d event loops: %d tasks in %d ms = %.0f tasks/s%n",
            measured ? "" : " warm-up " + round + " (not measured)", agents.size(), instances, result.completed(),
            result.took().toMillis(), result.perSecond());
          cpu.print(phase, result.completed(), client.threads());
        }
        BenchMain.requireCompleted("tasks claimed and completed on the floor", result.completed());
        return result;
      } finally {
        client.close();
      }
    }
  }

  /**
   * The raw single-statement claim with 8 and with {@code agents} JDBC connections, each over
   * {@code tasks} fresh tasks after VACUUM, with its CPU split.
   */
  private static List<RawClaims.Result> rawPhases(String when, NodeSide node, PgUrl db, HttpClaimers http, int tasks,
                                                  int agents, Duration budget, Path pgDir) throws Exception {
    List<RawClaims.Result> raws = new ArrayList<>();
    for (int clients : List.of(8, agents)) {
      createTasks(http, "raw-" + when + "-" + clients, tasks);
      TestDatabase.execute(db, "VACUUM ANALYZE swarm.tasks");
      CpuSplit cpu = CpuSplit.start(pgDir, node.pid());
      RawClaims.Result raw = RawClaims.run(db, clients, tasks, budget);
      BenchMain.requireCompleted("raw claims with " + clients + " connections (" + when + ")", raw.claims());
      raws.add(raw);
      System.out.printf(Locale.ROOT, "raw single-statement SKIP LOCKED claim, %d connections (%s): %d claims in %d ms = %.0f claims/s%n",
        clients, when, raw.claims(), raw.took().toMillis(), raw.perSecond());
      // (no node takes part in the raw claims: in this JVM "node" is the JDBC clients; with the node in a
      // process of its own, they are the "load generator" and the node is idle)
      cpu.print("raw claims, " + clients + " connections (" + when + ")", raw.claims(), java.util.Set.of());
    }
    return raws;
  }

  private static double best(List<RawClaims.Result> raws) {
    return raws.stream().mapToDouble(RawClaims.Result::perSecond).max().orElse(0);
  }

  /**
   * What precedes every claim+complete round, warm-up or measured: its tasks, created in bodies of
   * 1,000; VACUUM ANALYZE; a read of the node's batch metric (a scrape of /metrics when the node runs
   * in a process of its own), which it returns.
   */
  private static double[] prepareRound(HttpClaimers http, PgUrl db, NodeSide node, String prefix, int tasks) throws Exception {
    createTasks(http, prefix, tasks);
    TestDatabase.execute(db, "VACUUM ANALYZE swarm.tasks");
    return node.batches().get();
  }

  /** Where PostgreSQL writes its log when the plans are asked for (beside its data directory). */
  private static Path pgLog(Path pgDir) {
    return pgDir.resolveSibling("pglog");
  }

  /**
   * What counting a request against its rate limit costs in PostgreSQL (the benchmark runs with the
   * limits off, since they allow an agent 30 claims a minute): swarm._rate_check on 64 buckets,
   * 20,000 times in one statement, as a batch runs it.
   */
  private static void rateLimitCost(PgUrl db) throws Exception {
    int checks = 20_000;
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null))) {
      String sql = "SELECT count(swarm._rate_check(jsonb_build_object('bucket', 'bench|' || (g % 64), 'limit', 1000000000), "
        + "date_trunc('milliseconds', clock_timestamp()))) FROM generate_series(1, " + checks + ") g";
      c.createStatement().execute(sql); // warm-up
      long t = System.nanoTime();
      c.createStatement().execute(sql);
      System.out.printf(Locale.ROOT, "rate limits (off above): counting one request in PostgreSQL costs %.1f µs (%d checks, 64 buckets)%n",
        (System.nanoTime() - t) / 1000.0 / checks, checks);
    }
  }

  private static void createTasks(HttpClaimers http, String prefix, int tasks) throws Exception {
    for (int from = 0; from < tasks; from += 1000) {
      JsonArray batch = tasks(prefix, from, Math.min(tasks, from + 1000));
      int status = http.post("/api/v1/tasks", new JsonObject().put("tasks", batch))
        .await(60, TimeUnit.SECONDS).statusCode();
      if (status != 201) {
        throw new IllegalStateException("creating tasks failed: " + status);
      }
    }
  }

  /** The benchmark's tasks {@code from} to {@code to} (exclusive): ids prefix-i, the four priorities in turn. */
  static JsonArray tasks(String prefix, int from, int to) {
    JsonArray out = new JsonArray();
    for (int i = from; i < to; i++) {
      out.add(new JsonObject().put("id", prefix + "-" + i).put("title", "benchmark task " + i)
        .put("description", "claim me, complete me").put("priority", List.of("critical", "high", "medium", "low").get(i % 4)));
    }
    return out;
  }
}
