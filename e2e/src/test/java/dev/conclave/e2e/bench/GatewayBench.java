package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.e2e.swarm.PgFunctionTimes;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static dev.conclave.platform.testing.Await.await;

/**
 * Gateway benchmark (a program, not a test). Starts the node fat jar as a real process on a fresh
 * data dir (embedded PostgreSQL), connects N echo agents and M closed-loop clients, and measures
 * the round trip from SendMessage to the terminal event on the client's StreamEvents stream. Then,
 * in the same run and with the same client count, it measures a bare Vert.x gRPC echo (unary, and
 * a bidirectional stream with the same number of answers per request) for comparison.
 *
 * <p>Parameters: {@link BenchSettings}. Run (see BENCHMARKS.md):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests -Pbench [-Dbench.agents=40 -Dbench.clients=20 ...]}
 */
public final class GatewayBench {

  private GatewayBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(GatewayBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    BenchSettings settings = BenchSettings.from(args, System.getProperties());
    System.out.println("bench: " + settings);
    System.out.println("bench: " + Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name") + " "
      + System.getProperty("java.version") + ", load generator heap max " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB, "
      + ManagementFactory.getOperatingSystemMXBean().getName());
    List<Recorder.Result> results = new ArrayList<>();
    Path root = Files.createTempDirectory("conclave-bench");
    Vertx vertx = Vertx.vertx();
    try {
      results.add(gateway(vertx, settings, root.resolve("data")));
      results.add(bare(vertx, settings, BareEcho.Mode.UNARY));
      results.add(bare(vertx, settings, BareEcho.Mode.STREAM));
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
      TestDatabase.deleteTree(root);
    }
    print(settings, results);
  }

  /**
   * {@code -Dbench.statements=true}: the node uses a PostgreSQL the benchmark starts (durable, the
   * same settings, pg_stat_statements loaded) instead of its own embedded one, and the benchmark
   * prints the statements that took the most execution time per round trip while measuring.
   */
  private static final boolean STATEMENTS = Boolean.getBoolean("bench.statements");
  /** {@code -Dbench.member=true}: the clients are a member who owns the agents, not the admin. */
  private static final boolean MEMBER = Boolean.getBoolean("bench.member");

  private static Recorder.Result gateway(Vertx vertx, BenchSettings s, Path data) {
    if (!STATEMENTS) {
      return gateway(vertx, s, data, Optional.empty(), Map.of(), new java.util.HashMap<>());
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(data.resolveSibling("bench-pg"), 0, Map.of("fsync", "on",
      "synchronous_commit", "on", "full_page_writes", "on", "shared_preload_libraries", "pg_stat_statements",
      "pg_stat_statements.track", "all", "pg_stat_statements.track_planning", "on"))) {
      TestDatabase.execute(pg.url(), "CREATE DATABASE gateway_bench");
      return gateway(vertx, s, data, Optional.of(pg), Map.of(), new java.util.HashMap<>());
    }
  }

  /**
   * One gateway measurement on a node started with {@code nodeEnv} added to its environment (its
   * tracing, for {@link TracingCostBench}); {@code cpu} receives each process's CPU µs per round trip.
   */
  static Recorder.Result gateway(Vertx vertx, BenchSettings s, Path data, Optional<EmbeddedPostgresServer> pg, Map<String, String> nodeEnv,
                                 Map<String, Double> cpu) {
    try (GatewayRig rig = GatewayRig.start(vertx, s, data, pg, nodeEnv, MEMBER, () -> { })) {
      Optional<PgUrl> db = rig.db();
      Runnable atMeasureStart = () -> db.ifPresent(url -> sql(() -> PgFunctionTimes.reset(url, true)));
      Recorder.Result result = rig.measure("gateway round trip", s.warmup(), s.measure(), atMeasureStart, cpu);
      db.ifPresent(url -> {
        System.out.println("bench: PostgreSQL statements by execution time while measuring (pg_stat_statements, track = all; "
          + "the last column is per round trip):");
        sql(() -> PgFunctionTimes.printStatements(url, result.requests(), 15));
      });
      printNodeSide(rig.node(), data);
      return result;
    }
  }

  /** What the node counted over the whole gateway run, and how its PostgreSQL was started. */
  private static void printNodeSide(NodeProcess node, Path data) {
    try {
      // HTTP/1.1, as Prometheus scrapes, and an outer bound: once, the JDK client's default h2c
      // upgrade hung here for minutes in spite of its request timeout
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> metrics = http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).get(15, TimeUnit.SECONDS);
      metrics.body().lines().filter(l -> l.startsWith("conclave_gateway_") && !l.contains("_bucket"))
        .forEach(l -> System.out.println("bench: node metric " + l));
    } catch (Exception e) {
      System.out.println("bench: node metrics not read: " + e);
    }
    try {
      System.out.println("bench: embedded PostgreSQL started as: " + Files.readString(data.resolve("pg").resolve("postmaster.opts")).strip());
    } catch (Exception e) {
      System.out.println("bench: embedded PostgreSQL options not read: " + e);
    }
  }

  private static Recorder.Result bare(Vertx vertx, BenchSettings s, BareEcho.Mode mode) {
    int port = FreePorts.next();
    int instances = 2;
    String server = await(vertx.deployVerticle(() -> new BareEcho.Server(port, s.chunks()), new DeploymentOptions().setInstances(instances)),
      Duration.ofSeconds(30), "echo server");
    SocketAddress address = SocketAddress.inetSocketAddress(port, "127.0.0.1");
    Recorder recorder = new Recorder();
    List<String> deployments = new ArrayList<>();
    List<BareEcho.Client> clients = new ArrayList<>();
    for (int c = 0; c < s.clients(); c++) {
      BareEcho.Client client = new BareEcho.Client(recorder, address, mode, s.chunks(), "client-" + c);
      deployments.add(await(vertx.deployVerticle(client), Duration.ofSeconds(30), "echo client"));
      clients.add(client);
    }
    String name = mode == BareEcho.Mode.UNARY ? "bare gRPC unary echo" : "bare gRPC stream echo";
    Recorder.Result result = GatewayRig.measure(name, recorder, clients.stream().map(ClosedLoop::run).toList(), s.bareWarmup(), s.bareMeasure(),
      new ProcCpu().self("load generator and echo server"), () -> { }, new java.util.HashMap<>());
    for (String id : deployments) {
      await(vertx.undeploy(id), Duration.ofSeconds(30), "undeploy");
    }
    await(vertx.undeploy(server), Duration.ofSeconds(30), "undeploy");
    return result;
  }

  private static void print(BenchSettings s, List<Recorder.Result> results) {
    System.out.println();
    System.out.printf(Locale.ROOT, "%d agents, %d clients (one request in flight each), %d text chunks + done per request, measured %d s (bare: %d s)%n",
      s.agents(), s.clients(), s.chunks(), s.measure().toSeconds(), s.bareMeasure().toSeconds());
    String header = String.format(Locale.ROOT, "%-24s %9s %9s %10s %8s %8s %8s %8s %7s",
      "scenario", "requests", "req/s", "events/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors");
    System.out.println(header);
    System.out.println("-".repeat(header.length()));
    for (Recorder.Result r : results) {
      System.out.printf(Locale.ROOT, "%-24s %9d %9.1f %10.1f %8.2f %8.2f %8.2f %8.2f %7d%n",
        r.scenario(), r.requests(), r.requestsPerSecond(), r.eventsPerSecond(), r.p50(), r.p90(), r.p99(), r.max(), r.errors());
    }
    System.out.println();
    System.out.println("events/s: messages clients received: for the gateway every StreamEvents event (the inbound message, "
      + s.chunks() + " text chunks, done), for the stream echo " + (s.chunks() + 1) + " per request, for the unary echo 1.");
  }

  private interface SqlStep {
    void run() throws java.sql.SQLException;
  }

  private static void sql(SqlStep step) {
    try {
      step.run();
    } catch (java.sql.SQLException e) {
      System.out.println("bench: pg_stat_statements not read: " + e.getMessage());
    }
  }
}
