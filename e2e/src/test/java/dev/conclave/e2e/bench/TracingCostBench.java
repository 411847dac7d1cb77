package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Vertx;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * What tracing costs the gateway (issue 44): {@link GatewayBench}'s gateway round trip with the node's
 * tracing off, on at 100 % sampling and on at 1 %, side by side, for each shape (agents × clients).
 * The configurations run interleaved, round after round (off, 100 %, 1 %, off, …), each on a fresh
 * node, so that whatever else loads the machine meanwhile falls on all of them alike; the table gives
 * each configuration's median and its runs' range.
 *
 * <p>Tracing on is what an operator sets: {@code OTEL_TRACES_EXPORTER=otlp} to an OTLP/HTTP endpoint
 * ({@link DiscardingOtlpReceiver} in this JVM, which answers at once and keeps only counts),
 * {@code OTEL_TRACES_SAMPLER=parentbased_traceidratio} with {@code OTEL_TRACES_SAMPLER_ARG} 1.0 or
 * 0.01, the SDK's default batch processor. Off is the default: no {@code OTEL_*} variable at all.
 *
 * <p>Parameters ({@code -Dbench.<name>=<value>}): {@code shapes} (default {@code 40x20,1x1}),
 * {@code tracing} ({@code off,100,1}: sampling percentages, {@code off} for none, {@code baseline}
 * for tracing off on the node jar named by {@code bench.baseline.jar}: a build from before tracing
 * existed, which is how "off costs nothing" is measured), {@code rounds}
 * (3), and GatewayBench's {@code chunks}, {@code warmup}, {@code seconds}. Run (see BENCHMARKS.md):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.bench.TracingCostBench}
 */
public final class TracingCostBench {

  private record Run(String shape, String tracing, int round, Recorder.Result result, Map<String, Double> cpu, long spans) {
  }

  private TracingCostBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(TracingCostBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    BenchSettings base = BenchSettings.from(args, System.getProperties());
    List<String> shapes = List.of(System.getProperty("bench.shapes", "40x20,1x1").split(","));
    List<String> tracings = List.of(System.getProperty("bench.tracing", "off,100,1").split(","));
    int rounds = Integer.getInteger("bench.rounds", 3);
    System.out.println("tracing-bench: shapes " + shapes + ", tracing " + tracings + ", " + rounds + " rounds, chunks " + base.chunks()
      + ", warm-up " + base.warmup().toSeconds() + " s, measured " + base.measure().toSeconds() + " s; "
      + Runtime.getRuntime().availableProcessors() + " cores, load average " + loadAverage());
    Vertx vertx = Vertx.vertx();
    List<Run> runs = new ArrayList<>();
    Path root = Files.createTempDirectory("conclave-tracing-bench");
    try (DiscardingOtlpReceiver receiver = new DiscardingOtlpReceiver(vertx)) {
      for (int round = 1; round <= rounds; round++) {
        for (String shape : shapes) {
          String[] ac = shape.trim().split("x");
          BenchSettings s = new BenchSettings(Integer.parseInt(ac[0]), Integer.parseInt(ac[1]), base.chunks(), base.warmup(), base.measure(),
            base.bareWarmup(), base.bareMeasure());
          for (String tracing : tracings) {
            Path data = root.resolve("r" + round + "-" + shape.trim() + "-" + tracing.trim());
            long spansBefore = receiver.spans();
            Map<String, Double> cpu = new LinkedHashMap<>();
            System.out.println("tracing-bench: round " + round + ", " + shape.trim() + ", tracing " + tracing.trim() + ", load average " + loadAverage());
            Recorder.Result r = onJar(tracing.trim(),
              () -> GatewayBench.gateway(vertx, s, data, Optional.empty(), environment(tracing.trim(), receiver), cpu));
            // what the node's stop flushed is in too
            Run run = new Run(shape.trim(), tracing.trim(), round, r, cpu, receiver.spans() - spansBefore);
            runs.add(run);
            System.out.printf(Locale.ROOT, "tracing-bench: round %d %s %s: %.1f req/s, p50 %.2f ms, p99 %.2f ms, node %.0f µs/rt, PostgreSQL %.0f µs/rt, "
                + "%d errors, %d spans exported%n", round, run.shape(), run.tracing(), r.requestsPerSecond(), r.p50(), r.p99(),
              cpu.getOrDefault("node", Double.NaN), cpu.getOrDefault("PostgreSQL", Double.NaN), r.errors(), run.spans());
            TestDatabase.deleteTree(data);
          }
        }
      }
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
      TestDatabase.deleteTree(root);
    }
    print(shapes, tracings, runs);
    System.out.println("tracing-bench: load average at the end " + loadAverage());
  }

  /** Runs one configuration; {@code baseline} runs on the baseline build's node jar. */
  private static Recorder.Result onJar(String tracing, Callable<Recorder.Result> run) throws Exception {
    if (!tracing.equals("baseline")) {
      return run.call();
    }
    String baseline = System.getProperty("bench.baseline.jar");
    if (baseline == null || !Files.isRegularFile(Path.of(baseline))) {
      throw new IllegalArgumentException("tracing 'baseline' needs -Dbench.baseline.jar=<a node jar built before tracing>, got " + baseline);
    }
    String before = System.getProperty("conclave.node.jar");
    System.setProperty("conclave.node.jar", baseline);
    try {
      return run.call();
    } finally {
      if (before == null) {
        System.clearProperty("conclave.node.jar");
      } else {
        System.setProperty("conclave.node.jar", before);
      }
    }
  }

  /** The node's environment for one configuration. */
  static Map<String, String> environment(String tracing, DiscardingOtlpReceiver receiver) {
    if (tracing.equals("off") || tracing.equals("baseline")) {
      return Map.of();
    }
    double ratio = Double.parseDouble(tracing) / 100;
    return Map.of(
      "OTEL_TRACES_EXPORTER", "otlp",
      "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
      "OTEL_TRACES_SAMPLER", "parentbased_traceidratio",
      "OTEL_TRACES_SAMPLER_ARG", Double.toString(ratio));
  }

  private static void print(List<String> shapes, List<String> tracings, List<Run> runs) {
    System.out.println();
    System.out.println("| shape | tracing | runs | req/s median (range) | p50 ms median (range) | p99 ms median (range) "
      + "| node CPU µs/rt median (range) | PostgreSQL CPU µs/rt median | spans exported per run | errors |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String shape : shapes) {
      for (String tracing : tracings) {
        List<Run> these = runs.stream().filter(r -> r.shape().equals(shape.trim()) && r.tracing().equals(tracing.trim())).toList();
        if (these.isEmpty()) {
          continue;
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %d | %s | %s | %s | %s | %.0f | %.0f | %d |%n", shape.trim(),
          tracing.trim().equals("off") || tracing.trim().equals("baseline") ? tracing.trim() : tracing.trim() + " %", these.size(),
          spread(these, r -> r.result().requestsPerSecond(), "%.1f"), spread(these, r -> r.result().p50(), "%.2f"),
          spread(these, r -> r.result().p99(), "%.2f"), spread(these, r -> r.cpu().getOrDefault("node", Double.NaN), "%.0f"),
          median(these, r -> r.cpu().getOrDefault("PostgreSQL", Double.NaN)), median(these, r -> r.spans()),
          these.stream().mapToLong(r -> r.result().errors()).sum());
      }
    }
  }

  private static String spread(List<Run> runs, ToDoubleFunction<Run> value, String format) {
    double[] v = runs.stream().mapToDouble(value).sorted().toArray();
    return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", median(v), v[0], v[v.length - 1]);
  }

  private static double median(List<Run> runs, ToDoubleFunction<Run> value) {
    return median(runs.stream().mapToDouble(value).sorted().toArray());
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String loadAverage() {
    return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
