package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import static dev.conclave.platform.testing.Await.await;

/**
 * One scenario of {@link PackBench}: connects N {@link ToolCallAgent}s to its server(s), runs the
 * warm-up and the measured window, samples CPU time over the measured window, lets the calls in
 * flight end, and disconnects the agents.
 */
final class PackScenario {

  /**
   * What a scenario measured. {@code cores}: CPU each part used over the measured window, in cores;
   * {@code microsPerCall}: that CPU time divided by the calls completed in the window.
   * {@code threadSplit}: per node process, the share of its CPU each thread group used.
   * {@code side}: how much counters read on the side (node metrics) grew over the measured window.
   */
  record Result(String name, Recorder.Result warmup, Recorder.Result measured, Map<String, Double> cores,
                Map<String, Double> microsPerCall, Map<String, Map<String, Double>> threadSplit, long sent, Map<String, Double> side) {
  }

  private static final Duration DRAIN_LIMIT = Duration.ofMillis(ToolCallAgent.CALL_TIMEOUT_MS + 5_000);

  private final Vertx vertx;
  private final PackBenchSettings settings;
  private final String text;

  PackScenario(Vertx vertx, PackBenchSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
    this.text = "x".repeat(settings.payload());
  }

  /** Runs a scenario with the settings' warm-up and measured window. */
  Result run(String name, String agentPrefix, List<SocketAddress> servers, String token, String toolName, ProcCpu cpu,
             Supplier<Map<String, Double>> sideCounters) {
    return run(name, agentPrefix, servers, token, toolName, cpu, sideCounters, settings.agents(), settings.warmup(), settings.measure());
  }

  /**
   * Runs a scenario with {@code agentCount} agents: agent {@code i} connects to {@code servers[i % size]}; {@code token} null for
   * the bare echo. {@code sideCounters} is read at the start and at the end of the measured window
   * (node metrics), and the deltas reported.
   */
  Result run(String name, String agentPrefix, List<SocketAddress> servers, String token, String toolName, ProcCpu cpu,
             Supplier<Map<String, Double>> sideCounters, int agentCount, Duration warmup, Duration measure) {
    CallWindows windows = new CallWindows();
    List<ToolCallAgent> agents = new ArrayList<>();
    List<String> deployments = new ArrayList<>();
    try {
      List<Future<String>> deploying = new ArrayList<>();
      for (int a = 0; a < agentCount; a++) {
        ToolCallAgent agent = new ToolCallAgent(windows, servers.get(a % servers.size()), token, agentPrefix + "-" + a, toolName, settings.inFlight(), text);
        agents.add(agent);
        deploying.add(vertx.deployVerticle(agent));
      }
      deploying.forEach(f -> deployments.add(await(f, Duration.ofSeconds(60), name + ": agent registration")));
      TreeMap<String, Integer> holders = new TreeMap<>();
      agents.forEach(a -> holders.merge(a.serverId(), 1, Integer::sum));
      System.out.println("bench: " + name + ": " + agents.size() + " agents registered, held by " + holders
        + "; warming up " + warmup.toSeconds() + " s, measuring " + measure.toSeconds() + " s");

      List<Future<Void>> loops = agents.stream().map(ToolCallAgent::run).toList();
      sleep(warmup);
      Map<String, Double> sideBefore = sideCounters.get();
      ProcCpu.Sample before = cpu.sample();
      windows.startMeasuring();
      sleep(measure);
      windows.stop();
      ProcCpu.Sample after = cpu.sample();
      Map<String, Double> sideAfter = sideCounters.get();
      await(Future.join(loops), DRAIN_LIMIT, name + ": agents finishing their calls in flight");

      Recorder.Result warm = windows.warmup().result(name);
      Recorder.Result measured = windows.measured().result(name);
      System.out.printf(java.util.Locale.ROOT, "bench: %s: warm-up %d calls (%.1f/s, %d errors); measured %d calls (%.1f/s, %d errors)%n",
        name, warm.requests(), warm.requestsPerSecond(), warm.errors(), measured.requests(), measured.requestsPerSecond(), measured.errors());
      BenchMain.requireCompleted(name + ": calls in the measured window (" + measured.errors() + " failed)", measured.requests());
      return new Result(name, warm, measured, after.coresSince(before), after.microsPerCall(before, measured.requests()),
        after.threadSplitSince(before), agents.stream().mapToLong(ToolCallAgent::sent).sum(), describeSide(sideBefore, sideAfter));
    } finally {
      for (String id : deployments) {
        try {
          await(vertx.undeploy(id), Duration.ofSeconds(30), "undeploy");
        } catch (IllegalStateException e) {
          System.err.println("bench: " + e.getMessage());
        }
      }
    }
  }

  /** How much each side counter grew over the measured window. */
  private static Map<String, Double> describeSide(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    after.forEach((k, v) -> out.put(k, v - before.getOrDefault(k, 0.0)));
    return out;
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
