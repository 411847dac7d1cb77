package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.platform.testing.FreePorts;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

/**
 * Pack tool call benchmark (a program, not a test). Starts two node processes (roles gateway and
 * pack-host) in one Hazelcast cluster over one PostgreSQL, registers an echo pack on node-1 (in
 * this JVM, on an event loop of its own), and drives N agents, each keeping K {@code
 * ExecutePackTool} calls in flight on its AgentStream:
 * <ul>
 *   <li><b>same</b>: the agents on node-1, where the pack is;</li>
 *   <li><b>cross</b>: the agents on node-2, so each call crosses the event bus to node-1 and back;</li>
 *   <li><b>bare</b>: after the nodes stopped, the same agents against {@link BareToolEcho}, a bare
 *   Vert.x gRPC server that answers each call on the stream at once.</li>
 * </ul>
 * Each prints a warm-up and a measured window (calls/s, latency percentiles, errors) and the CPU
 * the node processes, PostgreSQL and this JVM used over the measured window.
 *
 * <p>Parameters: {@link PackBenchSettings}. Run (see BENCHMARKS.md, "Pack tool calls"):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.bench.PackBench [-Dbench.agents=16 -Dbench.inflight=1 ...]}
 */
public final class PackBench {

  static final String PACK_ID = "bench-pack";
  static final String TOOL = "bench_echo";

  private PackBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(PackBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    PackBenchSettings settings = PackBenchSettings.from(System.getProperties());
    System.out.println("bench: pack tool calls: " + settings);
    System.out.println("bench: " + Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name") + " "
      + System.getProperty("java.version") + ", bench JVM heap max " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB, "
      + ManagementFactory.getOperatingSystemMXBean().getName() + ", load average before the run: " + loadAverage());
    List<PackScenario.Result> results = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Path root = Files.createTempDirectory("conclave-pack-bench");
    // agents (and the bare echo server) on the default event loops; the pack on one of its own
    Vertx load = Vertx.vertx();
    Vertx packLoop = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
    try {
      if (settings.runs("same") || settings.runs("cross")) {
        results.addAll(cluster(load, packLoop, settings, root.resolve("cluster"), notes));
      }
      if (settings.runs("bare")) {
        results.add(bare(load, settings));
      }
    } finally {
      load.close().await(30, TimeUnit.SECONDS);
      packLoop.close().await(30, TimeUnit.SECONDS);
      dev.conclave.platform.testing.TestDatabase.deleteTree(root);
    }
    PackBenchReport.print(settings, results, notes);
    System.out.println("bench: load average after the run: " + loadAverage());
  }

  private static List<PackScenario.Result> cluster(Vertx load, Vertx packLoop, PackBenchSettings s, Path dir, List<String> notes) {
    List<PackScenario.Result> results = new ArrayList<>();
    try (TwoNodeCluster cluster = new TwoNodeCluster(dir)) {
      Duration ready = cluster.start();
      System.out.println("bench: node-1 (pid " + cluster.node(0).pid() + ") and node-2 (pid " + cluster.node(1).pid()
        + ") ready in " + ready.toMillis() + " ms; PostgreSQL: " + cluster.postgresOptions());
      CompletableFuture<String> packToken = CompletableFuture.supplyAsync(() -> cluster.token("--new-pack", "bench-pack"));
      CompletableFuture<String> agentToken = CompletableFuture.supplyAsync(() -> cluster.token("--new-agent", "bench-agents"));
      SocketAddress node1 = SocketAddress.inetSocketAddress(cluster.member(0).grpc(), "127.0.0.1");
      SocketAddress node2 = SocketAddress.inetSocketAddress(cluster.member(1).grpc(), "127.0.0.1");

      BenchPack pack = new BenchPack(packLoop, node1, packToken.join());
      Await.await(pack.register(PACK_ID, TOOL), Duration.ofSeconds(30), "pack registration");
      System.out.println("bench: pack '" + PACK_ID + "' registered on node-1 with tool '" + TOOL + "'");
      ProcCpu cpu = new ProcCpu()
        .processByThread("node-1", cluster.node(0).pid())
        .processByThread("node-2", cluster.node(1).pid())
        .processTree("postgres", cluster.postgresPid())
        .self("bench JVM")
        .thread("pack (in bench JVM)", pack.thread());
      PackScenario scenario = new PackScenario(load, s);
      try {
        if (!s.jitWarmup().isZero()) {
          // at least 16 agents, so that a run measuring one agent's latency still warms up in time
          int agents = Math.max(16, s.agents());
          PackScenario.Result jit = scenario.run("JIT warm-up", "jit", List.of(node1, node2), agentToken.join(), TOOL, cpu, Map::of,
            agents, Duration.ZERO, s.jitWarmup());
          notes.add(String.format(Locale.ROOT, "JIT warm-up (%d agents, half on each node, %d s): %d calls, %.1f calls/s, p50 %.2f ms, %d errors; "
              + "share of node CPU in the JIT compiler during it: node-1 %.0f%%, node-2 %.0f%%", agents, s.jitWarmup().toSeconds(),
            jit.measured().requests(), jit.measured().requestsPerSecond(), jit.measured().p50(), jit.measured().errors(),
            100 * jit.threadSplit().get("node-1").get("JIT compiler"), 100 * jit.threadSplit().get("node-2").get("JIT compiler")));
        }
        // in the order bench.scenarios lists them (the later one runs on warmer JVMs)
        for (String name : s.scenarios()) {
          if (name.equals("bare")) {
            continue;
          }
          boolean same = name.equals("same");
          results.add(scenario.run(same ? "same node" : "across nodes", name, List.of(same ? node1 : node2), agentToken.join(), TOOL, cpu,
            () -> packHostMetrics(cluster)));
          notes.add(persisted(cluster, name, results.get(results.size() - 1).sent()));
        }
      } finally {
        notes.add("the pack answered " + pack.answered() + " calls; " + pack.failedResults() + " ToolResult calls failed"
          + (pack.lost() ? "; its Register stream ENDED during the run" : ""));
        Await.await(pack.close(), Duration.ofSeconds(30), "pack close");
        // what the nodes logged while the benchmark ran (a stopping cluster logs its own farewells)
        for (int i = 0; i < 2; i++) {
          String node = "node-" + (i + 1);
          List<String> lines = cluster.node(i).logText().lines().toList();
          List<String> bad = lines.stream().filter(l -> l.contains(" ERROR ") || l.contains(" WARN ")).toList();
          if (!bad.isEmpty()) {
            notes.add(node + " logged " + bad.size() + " WARN/ERROR lines; the first: " + bad.get(0));
          }
          lines.stream().filter(l -> l.contains("agent disconnected") && !l.contains("reason=agent closed its stream"))
            .forEach(l -> notes.add(node + " ended an agent's stream: " + l));
        }
        int[] exits = cluster.stop();
        notes.add("nodes stopped, exit codes " + exits[0] + " and " + exits[1] + "; node logs kept in " + keepLogs(cluster));
      }
    }
    return results;
  }

  /** Copies both node logs out of the data dirs (which are deleted at the end); returns where. */
  private static Path keepLogs(TwoNodeCluster cluster) {
    try {
      Path dir = Files.createTempDirectory("conclave-pack-bench-logs");
      for (int i = 0; i < 2; i++) {
        Files.writeString(dir.resolve("node-" + (i + 1) + ".log"), cluster.node(i).logText());
      }
      return dir;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * How many of a scenario's calls are in packs.tool_calls: right after the calls ended, and once
   * the count stops growing (the row is written after the agent got its result).
   */
  private static String persisted(TwoNodeCluster cluster, String prefix, long sent) {
    String sql = "SELECT count(*) FROM packs.tool_calls WHERE agent_id LIKE '" + prefix + "-%'";
    long atOnce = cluster.queryLong(sql);
    long rows = atOnce;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (rows < sent && System.nanoTime() < deadline) {
      PackScenario.sleep(Duration.ofMillis(200));
      rows = cluster.queryLong(sql);
    }
    long ok = cluster.queryLong(sql + " AND outcome = 'ok'");
    return String.format(Locale.ROOT, "%s: %d calls sent; packs.tool_calls held %d of them when the last result arrived, %d later (%d with outcome ok)",
      prefix, sent, atOnce, rows, ok);
  }

  /** The pack host's own timer of tool calls (lookup to outcome), on both nodes. */
  private static Map<String, Double> packHostMetrics(TwoNodeCluster cluster) {
    Map<String, Double> out = new LinkedHashMap<>();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    for (int i = 0; i < 2; i++) {
      try {
        HttpResponse<String> r = http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.member(i).http() + "/metrics"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).get(15, TimeUnit.SECONDS);
        String node = "node-" + (i + 1);
        r.body().lines()
          .filter(l -> l.startsWith("conclave_packs_tool_call_duration_seconds_count") || l.startsWith("conclave_packs_tool_call_duration_seconds_sum"))
          .filter(l -> l.contains("kind=\"pack\""))
          .forEach(l -> out.put(node + " " + l.substring(0, l.indexOf('{')), Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))));
      } catch (Exception e) {
        System.out.println("bench: metrics of node-" + (i + 1) + " not read: " + e);
      }
    }
    return out;
  }

  private static PackScenario.Result bare(Vertx load, PackBenchSettings s) {
    int port = FreePorts.next();
    String server = Await.await(load.deployVerticle(() -> new BareToolEcho(port), new DeploymentOptions().setInstances(2)),
      Duration.ofSeconds(30), "bare echo server");
    try {
      ProcCpu cpu = new ProcCpu().self("bench JVM");
      return new PackScenario(load, s).run("bare gRPC echo", "bare", List.of(SocketAddress.inetSocketAddress(port, "127.0.0.1")), null, TOOL,
        cpu, Map::of);
    } finally {
      Await.await(load.undeploy(server), Duration.ofSeconds(30), "undeploy");
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (Exception e) {
      return "(unknown)";
    }
  }
}
