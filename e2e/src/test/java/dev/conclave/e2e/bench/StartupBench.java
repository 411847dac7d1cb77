package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long the node jar takes to come up (issue 45), as users start it: {@code java -jar
 * conclave-node.jar serve} on embedded PostgreSQL, timed from spawning the process to its ready line,
 * with the split that line prints. Four kinds of run, {@code bench.runs} of each (default 5):
 * <ul>
 *   <li>{@code cold}: a fresh data dir (initdb, every migration);</li>
 *   <li>{@code warm}: a restart on a data dir whose node stopped cleanly;</li>
 *   <li>{@code token}: {@code token --new-client} while a node runs on the data dir (it uses the node's PostgreSQL);</li>
 *   <li>{@code token-alone}: the same with no node running (the command starts the data dir's PostgreSQL itself).</li>
 * </ul>
 * Each run prints its line; the summary gives each kind's median, best and worst, with the load average
 * (other work on the machine counts: the best is the figure nearest a quiet machine).
 * {@code -Dbench.javaOptions="…"} goes before {@code -jar} (default: none, as {@code ./conclave up}).
 * Run (see BENCHMARKS.md):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.bench.StartupBench}
 */
public final class StartupBench {

  private static final Pattern SPLIT = Pattern.compile("took=(\\d+)ms \\(([^)]*)\\)");

  private record Run(String kind, int n, long wallMillis, String split) {
  }

  private StartupBench() {
  }

  public static void main(String[] args) {
    // its error, its leftover processes and a hang end the program (BenchMain), as for every benchmark
    BenchMain.run(StartupBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    int runs = Integer.getInteger("bench.runs", 5);
    List<String> kinds = List.of(System.getProperty("bench.kinds", "cold,warm,token,token-alone").split(","));
    List<String> javaOptions = Arrays.stream(System.getProperty("bench.javaOptions", "").trim().split("\\s+")).filter(s -> !s.isEmpty())
      .toList();
    System.out.println("startup-bench: " + runs + " runs of " + kinds + ", jar " + NodeProcess.jar() + ", java options " + javaOptions
      + "; " + Runtime.getRuntime().availableProcessors() + " cores, load average " + loadAverage());
    Path root = Files.createTempDirectory("conclave-startup-bench");
    List<Run> results = new ArrayList<>();
    try {
      Path data = root.resolve("data");
      for (String kind : kinds) {
        for (int i = 1; i <= runs; i++) {
          Run run = switch (kind.trim()) {
            case "cold" -> {
              TestDatabase.deleteTree(data);
              yield serve("cold", i, data, javaOptions, false);
            }
            case "warm" -> {
              if (!Files.exists(data.resolve("pg"))) {
                serve("warm-up", 0, data, javaOptions, false);
              }
              yield serve("warm", i, data, javaOptions, false);
            }
            case "token" -> serve("token", i, data, javaOptions, true);
            case "token-alone" -> {
              if (!Files.exists(data.resolve("pg"))) {
                serve("warm-up", 0, data, javaOptions, false);
              }
              yield token("token-alone", i, data, javaOptions);
            }
            default -> throw new IllegalArgumentException("bench.kinds: unknown kind '" + kind + "'");
          };
          results.add(run);
          System.out.printf(Locale.ROOT, "startup-bench: %s %d: %d ms%s (load average %s)%n", run.kind(), run.n(), run.wallMillis(),
            run.split().isEmpty() ? "" : ", node " + run.split(), loadAverage());
        }
      }
    } finally {
      TestDatabase.deleteTree(root);
    }
    BenchMain.requireCompleted("start-up runs", results.size());
    System.out.println();
    System.out.println("| run | median | best | worst | all (ms) |");
    System.out.println("|---|---|---|---|---|");
    for (String kind : kinds) {
      long[] walls = results.stream().filter(r -> r.kind().equals(kind.trim())).mapToLong(Run::wallMillis).sorted().toArray();
      if (walls.length > 0) {
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %s |%n", kind.trim(), walls[walls.length / 2], walls[0], walls[walls.length - 1],
          Arrays.toString(walls));
      }
    }
    System.out.println("startup-bench: done, load average " + loadAverage());
  }

  /**
   * Starts a node on {@code data} and times it to its ready line; with {@code thenToken}, times a
   * {@code token} command against it instead. Then SIGTERM, and the node must exit 0.
   */
  private static Run serve(String kind, int n, Path data, List<String> javaOptions, boolean thenToken) throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CONCLAVE_DATA_DIR", data.toString());
    env.put("CONCLAVE_BIND_HOST", "127.0.0.1");
    env.put("CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next()));
    env.put("CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()));
    long t0 = System.nanoTime();
    Process node = process(javaOptions, env, "serve");
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
      List<String> lines = new ArrayList<>();
      String line;
      while ((line = out.readLine()) != null && !line.contains(" ready node=")) {
        lines.add(line);
      }
      long wall = (System.nanoTime() - t0) / 1_000_000;
      if (line == null) {
        throw new IllegalStateException(kind + " " + n + ": the node exited before ready; output:\n" + String.join("\n", lines));
      }
      CompletableFuture.runAsync(() -> drain(out));
      Matcher m = SPLIT.matcher(line);
      String split = m.find() ? m.group(0) : line;
      Run run = thenToken ? token(kind, n, data, javaOptions) : new Run(kind, n, wall, split);
      node.toHandle().destroy();
      if (!node.waitFor(60, TimeUnit.SECONDS) || node.exitValue() != 0) {
        throw new IllegalStateException(kind + " " + n + ": the node did not stop cleanly after SIGTERM");
      }
      return run;
    } finally {
      node.destroyForcibly();
    }
  }

  private static Run token(String kind, int n, Path data, List<String> javaOptions) throws Exception {
    long t0 = System.nanoTime();
    Process token = process(javaOptions, Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-client", "bench-" + kind + "-" + n);
    String out = new String(token.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!token.waitFor(60, TimeUnit.SECONDS) || token.exitValue() != 0 || out.split("\\.").length != 3) {
      throw new IllegalStateException(kind + " " + n + ": the token command failed; output:\n" + out);
    }
    return new Run(kind, n, (System.nanoTime() - t0) / 1_000_000, "");
  }

  private static Process process(List<String> javaOptions, Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(javaOptions);
    command.addAll(List.of("-jar", NodeProcess.jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(!args[0].equals("token"));
    if (args[0].equals("token")) {
      pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().putAll(env);
    return pb.start();
  }

  private static void drain(BufferedReader out) {
    try {
      while (out.readLine() != null) {
        // discarded: the node must never block on a full pipe
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  private static String loadAverage() {
    return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
