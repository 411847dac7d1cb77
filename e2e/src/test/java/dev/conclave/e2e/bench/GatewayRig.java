package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static dev.conclave.platform.testing.Await.await;

/**
 * GatewayBench's set-up, shared with RetentionBench: the node fat jar as its own process, N echo
 * agents registered, M closed-loop clients following their agents' conversations; then one or more
 * measured phases of the same clients ({@link #measure}). Closing undeploys them and stops the node
 * gracefully, so its embedded PostgreSQL stops with it.
 */
final class GatewayRig implements AutoCloseable {

  static final Duration DRAIN_LIMIT = Duration.ofSeconds(ClosedLoop.REQUEST_TIMEOUT_MS / 1000 + 5);

  private final Vertx vertx;
  private final NodeProcess node;
  private final Optional<PgUrl> db;
  private final List<String> deployments = new ArrayList<>();
  private final List<GatewayClientLoop> clients = new ArrayList<>();
  private ProcCpu processes;

  private GatewayRig(Vertx vertx, NodeProcess node, Optional<PgUrl> db) {
    this.vertx = vertx;
    this.node = node;
    this.db = db;
  }

  /**
   * Starts the node on {@code data} with {@code nodeEnv} added to its environment, on {@code pg}'s
   * database {@code gateway_bench} if given (else on its own embedded PostgreSQL); {@code beforeAgents}
   * runs once the node is ready, before any agent registers. {@code member}: the clients are a member
   * who owns the agents, not the admin.
   */
  static GatewayRig start(Vertx vertx, BenchSettings s, Path data, Optional<EmbeddedPostgresServer> pg, Map<String, String> nodeEnv,
                          boolean member, Runnable beforeAgents) {
    Map<String, String> env = new HashMap<>(Map.of("CONCLAVE_NODE_ID", "bench-node"));
    env.putAll(nodeEnv);
    Optional<PgUrl> db = pg.map(p -> p.url().withDatabase("gateway_bench"));
    db.ifPresent(url -> env.put("CONCLAVE_PG_URL", url.full()));
    // e.g. -Dbench.nodeJavaOptions=-XX:StartFlightRecording=filename=/tmp/node.jfr,settings=profile to see where the node's time goes
    String javaOptions = System.getProperty("bench.nodeJavaOptions", "");
    if (!javaOptions.isBlank()) {
      env.put("JAVA_TOOL_OPTIONS", javaOptions);
    }
    GatewayRig rig = new GatewayRig(vertx, NodeProcess.start(data, env), db);
    try {
      rig.connect(s, data, pg, member, beforeAgents);
      return rig;
    } catch (RuntimeException e) {
      rig.close();
      throw e;
    }
  }

  private void connect(BenchSettings s, Path data, Optional<EmbeddedPostgresServer> pg, boolean member, Runnable beforeAgents) {
    Duration ready = node.awaitReady(Duration.ofSeconds(120));
    System.out.println("bench: node ready in " + ready.toMillis() + " ms (pid " + node.pid() + ")");
    beforeAgents.run();
    Map<String, String> cli = new HashMap<>(Map.of("CONCLAVE_DATA_DIR", data.toString()));
    db.ifPresent(url -> cli.put("CONCLAVE_PG_URL", url.full()));
    // the admin follows every agent's conversation; with member a member who owns the agents
    // does, so every message is checked against access control
    String clientToken = member
      ? NodeProcess.cli(cli, "token", "--new-client", "bench-member", "--ttl", "2h")
      : NodeProcess.cli(cli, "token", "--admin", "--ttl", "2h");
    String agentToken = member
      ? NodeProcess.cli(cli, "token", "--new-agent", "bench-agents", "--owner", subject(clientToken), "--ttl", "2h")
      : NodeProcess.cli(cli, "token", "--new-agent", "bench-agents", "--ttl", "2h");
    SocketAddress address = SocketAddress.inetSocketAddress(node.grpcPort(), "127.0.0.1");

    List<Future<String>> agents = new ArrayList<>();
    for (int a = 0; a < s.agents(); a++) {
      agents.add(vertx.deployVerticle(new BenchAgent(address, agentToken, "bench-" + a, s.chunks())));
    }
    agents.forEach(f -> deployments.add(await(f, Duration.ofSeconds(60), "agent registration")));
    System.out.println("bench: " + s.agents() + " agents registered");

    Recorder unused = new Recorder();
    for (int c = 0; c < s.clients(); c++) {
      List<String> owned = new ArrayList<>();
      for (int a = c; a < s.agents(); a += s.clients()) {
        owned.add("bench-" + a);
      }
      GatewayClientLoop client = new GatewayClientLoop(unused, address, clientToken, "client-" + c, owned);
      deployments.add(await(vertx.deployVerticle(client), Duration.ofSeconds(60), "client subscription"));
      clients.add(client);
    }
    System.out.println("bench: " + s.clients() + " clients following their conversations");

    processes = new ProcCpu().processByThread("node", node.pid());
    ProcCpu.postmasterPid(pg.map(EmbeddedPostgresServer::directory).orElse(data.resolve("pg")))
      .ifPresent(pid -> processes.processTree("PostgreSQL", pid));
    processes.self("load generator");
  }

  NodeProcess node() {
    return node;
  }

  /** The node's database when the benchmark started its PostgreSQL. */
  Optional<PgUrl> db() {
    return db;
  }

  /**
   * One phase: every client runs its loop into a fresh recorder through warm-up and measurement,
   * then finishes its last request. {@code cpu} receives each process's CPU µs per round trip.
   */
  Recorder.Result measure(String scenario, Duration warmup, Duration measure, Runnable atMeasureStart, Map<String, Double> cpu) {
    Recorder recorder = new Recorder();
    List<Future<Void>> loops = clients.stream().map(c -> c.run(recorder)).toList();
    return measure(scenario, recorder, loops, warmup, measure, processes, atMeasureStart, cpu);
  }

  /**
   * Runs the loops through warm-up and measurement, then lets each finish its last request. Prints
   * the cores each process kept busy while measuring, and its CPU time per request.
   */
  static Recorder.Result measure(String scenario, Recorder recorder, List<Future<Void>> loops, Duration warmup, Duration measure,
                                 ProcCpu cpu, Runnable atMeasureStart, Map<String, Double> cpuPerRequest) {
    System.out.println("bench: " + scenario + ": warming up " + warmup.toSeconds() + " s, measuring " + measure.toSeconds() + " s");
    sleep(warmup);
    atMeasureStart.run();
    recorder.startMeasuring();
    ProcCpu.Sample before = cpu.sample();
    sleep(measure);
    ProcCpu.Sample after = cpu.sample();
    recorder.stopMeasuring();
    long measured = recorder.measuredSoFar();
    StringBuilder split = new StringBuilder("bench: " + scenario + ": CPU while measuring (cores busy, CPU µs per request):");
    Map<String, Double> perRequest = after.microsPerCall(before, measured);
    cpuPerRequest.putAll(perRequest);
    after.coresSince(before).forEach((part, cores) -> split.append(String.format(Locale.ROOT, " %s %.2f cores, %.0f µs;", part, cores,
      perRequest.get(part))));
    System.out.println(split);
    after.threadSplitSince(before).forEach((part, shares) -> {
      StringBuilder threads = new StringBuilder("bench: " + scenario + ": " + part + " CPU by thread group:");
      shares.forEach((group, share) -> threads.append(String.format(Locale.ROOT, " %s %.0f%%;", group, 100 * share)));
      System.out.println(threads);
    });
    await(Future.all(loops), DRAIN_LIMIT, scenario + ": loops finishing their last request");
    Recorder.Result r = recorder.result(scenario);
    System.out.println("bench: " + scenario + ": " + r.requests() + " requests, " + r.errors() + " errors");
    BenchMain.requireCompleted(scenario + " requests (" + r.errors() + " failed)", r.requests());
    return r;
  }

  @Override
  public void close() {
    for (String id : deployments) {
      try {
        await(vertx.undeploy(id), Duration.ofSeconds(30), "undeploy");
      } catch (IllegalStateException e) {
        System.err.println("bench: " + e.getMessage());
      }
    }
    // a graceful stop, so the node's embedded PostgreSQL stops with it
    if (node.alive()) {
      int exit = node.terminate(Duration.ofSeconds(60));
      System.out.println("bench: node stopped, exit code " + exit);
    }
    List<String> errors = node.logText().lines().filter(l -> l.contains(" ERROR ")).toList();
    if (!errors.isEmpty()) {
      System.out.println("bench: the node logged " + errors.size() + " ERROR lines; the first: " + errors.get(0));
    }
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The principal a token was issued to. */
  private static String subject(String token) {
    String payload = new String(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]), java.nio.charset.StandardCharsets.UTF_8);
    return new io.vertx.core.json.JsonObject(payload).getString("sub");
  }
}
