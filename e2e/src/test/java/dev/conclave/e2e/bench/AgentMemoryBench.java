package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory per idle connected agent (a program, not a test). Starts the node fat jar with native
 * memory tracking, measures it idle, connects N agents (each on its own connection, registered,
 * heartbeating), and measures again: resident set size, heap used after a full GC, and the JVM's
 * committed native memory outside the heap (NMT). Prints the totals and the growth per agent.
 *
 * <p>Run (see BENCHMARKS.md):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.bench.AgentMemoryBench [-Dbench.agents=10000]}
 */
public final class AgentMemoryBench {

  private static final int STEP = 500;

  private record Memory(long rssKiB, long heapUsedKiB, long nativeKiB, long heapCommittedKiB) {
  }

  private AgentMemoryBench() {
  }

  public static void main(String[] args) throws Exception {
    int agents = Integer.getInteger("bench.agents", 10_000);
    Path root = Files.createTempDirectory("conclave-membench");
    Path data = root.resolve("data");
    Vertx vertx = Vertx.vertx();
    try (NodeProcess node = NodeProcess.start(data, Map.of(
      "CONCLAVE_NODE_ID", "membench-node",
      "JAVA_TOOL_OPTIONS", "-XX:NativeMemoryTracking=summary",
      "CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", String.valueOf(agents + 100),
      "CONCLAVE_MAX_CALLS_PER_PRINCIPAL", String.valueOf(agents + 100)))) {
      System.out.println("bench: node ready in " + node.awaitReady(Duration.ofSeconds(120)).toMillis() + " ms (pid " + node.pid() + ")");
      String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "membench-agents", "--ttl", "2h");
      SocketAddress address = SocketAddress.inetSocketAddress(node.grpcPort(), "127.0.0.1");

      Thread.sleep(5_000);
      Memory idle = measure(node.pid());
      System.out.println("bench: idle node: " + idle);
      Map<String, Long> idleClasses = classBytes(jcmd(node.pid(), "GC.class_histogram"));

      long start = System.nanoTime();
      for (int from = 0; from < agents; from += STEP) {
        List<Future<String>> step = new ArrayList<>();
        for (int a = from; a < Math.min(agents, from + STEP); a++) {
          step.add(vertx.deployVerticle(new BenchAgent(address, token, "mem-" + a, 0)));
        }
        Future.all(step).toCompletionStage().toCompletableFuture().get(300, TimeUnit.SECONDS);
        System.out.printf(Locale.ROOT, "bench: %d of %d agents connected and registered (%.0f s)%n", Math.min(agents, from + STEP), agents,
          (System.nanoTime() - start) / 1e9);
      }
      Thread.sleep(10_000);
      Memory loaded = measure(node.pid());
      System.out.println("bench: with " + agents + " agents: " + loaded);
      // where the heap goes: the largest classes by bytes, live objects only (the histogram forces a full GC)
      System.out.println("bench: heap histogram with " + agents + " agents, top 25 classes by bytes:");
      String histogram = jcmd(node.pid(), "GC.class_histogram");
      histogram.lines().skip(1).limit(27).forEach(l -> System.out.println("bench:   " + l));
      printShares(idleClasses, classBytes(histogram), agents);

      double n = agents;
      double rss = (loaded.rssKiB() - idle.rssKiB()) / n;
      double heap = (loaded.heapUsedKiB() - idle.heapUsedKiB()) / n;
      double nativeGrowth = (loaded.nativeKiB() - idle.nativeKiB()) / n;
      System.out.println();
      System.out.printf(Locale.ROOT, "%d idle agents, each on its own connection, one node (fat jar, -Xmx512m, SerialGC)%n", agents);
      System.out.printf(Locale.ROOT, "%-34s %12s %12s %14s%n", "", "idle node", "with agents", "per agent");
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB%n", "heap used after full GC", idle.heapUsedKiB(), loaded.heapUsedKiB(), heap);
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB%n", "native committed, outside the heap", idle.nativeKiB(), loaded.nativeKiB(), nativeGrowth);
      System.out.printf(Locale.ROOT, "%-34s %10s %10s %10.2f KiB%n", "live node memory (heap + native)", "", "", heap + nativeGrowth);
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB%n", "resident set size", idle.rssKiB(), loaded.rssKiB(), rss);
      System.out.println("(native: NMT's committed total minus the Java heap's committed size; RSS also counts heap pages touched once and kept)");
      int exit = node.terminate(Duration.ofSeconds(120));
      System.out.println("bench: node stopped, exit code " + exit);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
      TestDatabase.deleteTree(root);
    }
  }

  private static Memory measure(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    Thread.sleep(1_000);
    long rss = statusKiB(pid, "VmRSS");
    long heapUsed = 0;
    Matcher used = Pattern.compile("used (\\d+)K").matcher(jcmd(pid, "GC.heap_info"));
    while (used.find()) {
      heapUsed += Long.parseLong(used.group(1));
    }
    String nmt = jcmd(pid, "VM.native_memory", "summary");
    long total = committedKiB(nmt, "Total:");
    long heapCommitted = committedKiB(nmt, "Java Heap (");
    return new Memory(rss, heapUsed, total - heapCommitted, heapCommitted);
  }

  /** The committed KiB on the line that starts with {@code label} (NMT summary). */
  private static long committedKiB(String nmt, String label) {
    for (String line : nmt.lines().toList()) {
      String l = line.strip();
      if (l.startsWith(label) || l.startsWith("-" + label) || l.contains(label)) {
        Matcher m = Pattern.compile("committed=(\\d+)KB").matcher(l);
        if (m.find()) {
          return Long.parseLong(m.group(1));
        }
      }
    }
    throw new IllegalStateException("no '" + label + "' in NMT output:\n" + nmt);
  }

  private static long statusKiB(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException(field + " not in /proc/" + pid + "/status");
  }

  /** Bytes per class in a {@code GC.class_histogram} (live objects only). */
  private static Map<String, Long> classBytes(String histogram) {
    Map<String, Long> out = new java.util.HashMap<>();
    Pattern row = Pattern.compile("^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");
    histogram.lines().forEach(l -> {
      Matcher m = row.matcher(l);
      if (m.find()) {
        out.merge(m.group(2), Long.parseLong(m.group(1)), Long::sum);
      }
    });
    return out;
  }

  /**
   * Whose objects the agents' heap growth is, by the class's package (an array by its element's):
   * the node's own code, Netty and Vert.x, other libraries, and the JDK's types (strings, maps, arrays
   * of primitives and of Object), whose owner the histogram cannot tell.
   */
  private static void printShares(Map<String, Long> idle, Map<String, Long> loaded, int agents) {
    Map<String, Long> growth = new java.util.TreeMap<>();
    loaded.forEach((cls, bytes) -> {
      String element = cls.replaceFirst("^\\[+L", "").replaceFirst(";$", "");
      String owner = element.startsWith("dev.conclave.") ? "the node's own classes (dev.conclave)"
        : element.startsWith("io.netty.") || element.startsWith("io.vertx.") ? "Netty and Vert.x"
        : element.startsWith("java.") || element.startsWith("jdk.") || element.startsWith("sun.") || element.startsWith("[")
          ? "JDK types (owner unknown: strings, maps, arrays)" : "other libraries";
      growth.merge(owner, bytes - idle.getOrDefault(cls, 0L), Long::sum);
    });
    System.out.println("bench: heap growth per agent by whose classes the objects are:");
    growth.forEach((owner, bytes) -> System.out.printf(Locale.ROOT, "bench:   %-52s %8.2f KiB%n", owner, bytes / 1024.0 / agents));
  }

  private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
