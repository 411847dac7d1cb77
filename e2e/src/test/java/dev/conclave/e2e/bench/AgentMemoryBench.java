package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.AgentConnections;
import dev.conclave.e2e.support.BenchMain;
import dev.conclave.e2e.support.FileLimit;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.FreePorts;
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
 * <p>With {@code -Dbench.server=bare} the agents connect to a {@link BareStreamServer} instead: the
 * same HTTP/2 and gRPC server settings holding the streams and nothing else, the floor that Vert.x
 * and Netty set whatever the node keeps per agent. {@code -Dbench.heapdump=FILE} writes a heap dump
 * with the agents connected.
 *
 * <p>At scale (issue 45): {@code -Dbench.heap=1g} sets the node's (or the bare server's) maximum heap
 * (512m by default); the agents' connections leave from several loopback addresses
 * ({@link AgentConnections}), so ephemeral ports do not bound them, and {@code -Dbench.streamsPerConnection=K}
 * puts K agents' streams on one connection (1 by default: each on its own). Both this JVM and the node
 * need a file descriptor per connection: the program stops at once, saying so, when the limit is
 * lower ({@code ulimit -n}; raise it with {@code prlimit --nofile=N:N} or {@code ulimit -n N} as root).
 * After measuring, {@code -Dbench.serve=200} agents spread over all of them each serve one request
 * ({@link ServeCheck}), so that a heap that holds the streams but cannot serve does not pass.
 * {@code -Dbench.stepSeconds=300} is how long one step of 500 registrations may take.
 *
 * <p>Run (see BENCHMARKS.md):
 * {@code mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.bench.AgentMemoryBench [-Dbench.agents=10000] [-Dbench.server=bare]}
 */
public final class AgentMemoryBench {

  private static final int STEP = 500;
  /**
   * Native memory tracking, and no dead objects left in place by the serial collector's full GC
   * (by default it leaves up to 5 % of the old generation as dead "wood", filled with int[], which
   * the heap's used size and even a live class histogram then count: 1 to 2 KiB per agent here).
   */
  private static final List<String> MEASURED_JVM = List.of("-XX:NativeMemoryTracking=summary", "-XX:MarkSweepDeadRatio=0",
    // as in production (k8s/): a heap too small ends the run instead of slowing it down for ever
    "-XX:+ExitOnOutOfMemoryError");

  private record Memory(long rssKiB, long heapUsedKiB, long nativeKiB, long heapCommittedKiB, Map<String, Long> nativeByCategory) {

    @Override
    public String toString() {
      return "Memory[rssKiB=" + rssKiB + ", heapUsedKiB=" + heapUsedKiB + ", nativeKiB=" + nativeKiB + ", heapCommittedKiB=" + heapCommittedKiB + "]";
    }
  }

  private AgentMemoryBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(AgentMemoryBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    int agents = Integer.getInteger("bench.agents", 10_000);
    boolean bare = "bare".equals(System.getProperty("bench.server", "node"));
    String maxHeap = System.getProperty("bench.heap", "512m");
    int streamsPerConnection = Integer.getInteger("bench.streamsPerConnection", 1);
    int serve = Integer.getInteger("bench.serve", 200);
    long stepSeconds = Long.getLong("bench.stepSeconds", 300);
    BenchMain.requireCompleted("agents to connect (bench.agents)", agents);
    int connectionCount = (agents + streamsPerConnection - 1) / streamsPerConnection;
    FileLimit.require(connectionCount + 2_000, "the benchmark's and the node's connections");
    Path root = Files.createTempDirectory("conclave-membench");
    Vertx vertx = Vertx.vertx();
    AgentConnections connections = AgentConnections.open(vertx, streamsPerConnection);
    System.out.printf(Locale.ROOT, "bench: %d agents, %d per connection (%d connections) from %d loopback source addresses; heap -Xmx%s%n",
      agents, streamsPerConnection, connectionCount, (connectionCount + 9_999) / 10_000, maxHeap);
    try (Server server = bare ? bareServer(root, maxHeap) : node(root, agents, maxHeap)) {
      SocketAddress address = SocketAddress.inetSocketAddress(server.grpcPort(), "127.0.0.1");
      String what = bare ? "bare server" : "node";

      Thread.sleep(5_000);
      Memory idle = measure(server.pid());
      System.out.println("bench: idle " + what + ": " + idle);
      Map<String, Long> idleClasses = classBytes(jcmd(server.pid(), "GC.class_histogram"));

      // the marginal cost is measured from a fifth of the agents on: by then the code that serves
      // them is compiled and its classes loaded, costs the node pays once and not per agent
      int first = Math.max(STEP, agents / 5 / STEP * STEP);
      Memory part = null;
      long start = System.nanoTime();
      for (int from = 0; from < agents; from += STEP) {
        if (from == first) {
          Thread.sleep(10_000);
          part = measure(server.pid());
          System.out.println("bench: with " + first + " agents: " + part);
        }
        List<Future<String>> step = new ArrayList<>();
        for (int a = from; a < Math.min(agents, from + STEP); a++) {
          step.add(vertx.deployVerticle(new BenchAgent(connections.forAgent(a), address, server.token(), "mem-" + a, 0)));
        }
        try {
          Future.all(step).await(stepSeconds, TimeUnit.SECONDS);
        } catch (Exception e) { // a failed registration (await throws it as it is) or the step's time out
          throw new IllegalStateException("agents " + from + " to " + Math.min(agents, from + STEP) + " did not all register within "
            + stepSeconds + " s (heap -Xmx" + maxHeap + ", server " + (server.alive() ? "running" : "gone") + ")", e);
        }
        System.out.printf(Locale.ROOT, "bench: %d of %d agents connected and registered (%.0f s)%n", Math.min(agents, from + STEP), agents,
          (System.nanoTime() - start) / 1e9);
      }
      Thread.sleep(10_000);
      Memory loaded = measure(server.pid());
      System.out.println("bench: with " + agents + " agents: " + loaded);
      // where the heap goes: the largest classes by bytes, live objects only (the histogram forces a full GC)
      System.out.println("bench: heap histogram with " + agents + " agents, top 25 classes by bytes:");
      String histogram = jcmd(server.pid(), "GC.class_histogram");
      histogram.lines().skip(1).limit(27).forEach(l -> System.out.println("bench:   " + l));
      printShares(idleClasses, classBytes(histogram), agents);
      System.out.println("bench: native growth per agent by NMT category (the Java heap left out):");
      loaded.nativeByCategory().forEach((name, kib) -> {
        double perAgent = (kib - idle.nativeByCategory().getOrDefault(name, 0L)) / (double) agents;
        if (!name.equals("Java Heap") && Math.abs(perAgent) >= 0.01) {
          System.out.printf(Locale.ROOT, "bench:   %-30s %8.2f KiB%n", name, perAgent);
        }
      });
      String dump = System.getProperty("bench.heapdump");
      if (dump != null) {
        System.out.println("bench: " + jcmd(server.pid(), "GC.heap_dump", dump).strip());
      }

      double n = agents;
      double rss = (loaded.rssKiB() - idle.rssKiB()) / n;
      double heap = (loaded.heapUsedKiB() - idle.heapUsedKiB()) / n;
      double nativeGrowth = (loaded.nativeKiB() - idle.nativeKiB()) / n;
      double m = agents - first;
      double heapMargin = part == null ? Double.NaN : (loaded.heapUsedKiB() - part.heapUsedKiB()) / m;
      double nativeMargin = part == null ? Double.NaN : (loaded.nativeKiB() - part.nativeKiB()) / m;
      double rssMargin = part == null ? Double.NaN : (loaded.rssKiB() - part.rssKiB()) / m;
      System.out.println();
      System.out.printf(Locale.ROOT, "%d idle agents, %s, %s%n", agents,
        streamsPerConnection == 1 ? "each on its own connection" : streamsPerConnection + " per connection",
        (bare ? "bare Vert.x gRPC server holding the streams (the floor; " : "one node (fat jar, ") + "-Xmx" + maxHeap + ", SerialGC)");
      String marginal = "per agent, " + first + " to " + agents;
      System.out.printf(Locale.ROOT, "%-34s %12s %12s %14s %24s%n", "", "idle " + what, "with agents", "per agent", marginal);
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB %20.2f KiB%n", "heap used after full GC", idle.heapUsedKiB(), loaded.heapUsedKiB(), heap, heapMargin);
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB %20.2f KiB%n", "native committed, outside the heap", idle.nativeKiB(), loaded.nativeKiB(), nativeGrowth, nativeMargin);
      System.out.printf(Locale.ROOT, "%-34s %10s %10s %10.2f KiB %20.2f KiB%n", "live " + what + " memory (heap + native)", "", "", heap + nativeGrowth, heapMargin + nativeMargin);
      System.out.printf(Locale.ROOT, "%-34s %10d KiB %10d KiB %10.2f KiB %20.2f KiB%n", "resident set size", idle.rssKiB(), loaded.rssKiB(), rss, rssMargin);
      System.out.println("(native: NMT's committed total minus the Java heap's committed size; RSS also counts heap pages touched once and kept;");
      System.out.println(" the last column leaves out what the node pays once for its first agents: compiled code, loaded classes)");
      if (!bare && serve > 0) {
        List<String> sample = new ArrayList<>();
        for (int i = 0; i < Math.min(serve, agents); i++) {
          sample.add("mem-" + (int) ((long) i * agents / Math.min(serve, agents)));
        }
        System.out.println("bench: " + ServeCheck.run(vertx, address, server.adminToken(), sample, 20));
        System.out.println("bench: after serving: " + measure(server.pid()));
      }
      System.out.printf(Locale.ROOT, "bench: %d agents registered and serving on one node with -Xmx%s, %d per connection%n", agents, maxHeap,
        streamsPerConnection);
    } finally {
      connections.close().await(120, TimeUnit.SECONDS);
      vertx.close().await(120, TimeUnit.SECONDS);
      TestDatabase.deleteTree(root);
    }
  }

  /** The process the agents connect to: its pid, its gRPC port, the token agents present, and how it stops. */
  private record Server(long pid, int grpcPort, String token, String adminToken, Stop stop) implements AutoCloseable {

    boolean alive() {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    interface Stop {
      void run() throws Exception;
    }

    @Override
    public void close() throws Exception {
      stop.run();
    }
  }

  private static Server node(Path root, int agents, String heap) throws Exception {
    Path data = root.resolve("data");
    NodeProcess node = NodeProcess.start(data, heap, Map.of(
      "CONCLAVE_NODE_ID", "membench-node",
      "JAVA_TOOL_OPTIONS", String.join(" ", MEASURED_JVM),
      "CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", String.valueOf(agents + 100),
      "CONCLAVE_MAX_CALLS_PER_PRINCIPAL", String.valueOf(agents + 100)));
    String token;
    String admin;
    try {
      System.out.println("bench: node ready in " + node.awaitReady(Duration.ofSeconds(120)).toMillis() + " ms (pid " + node.pid() + ")");
      token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "membench-agents", "--ttl", "2h");
      admin = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--admin", "--ttl", "2h");
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    return new Server(node.pid(), node.grpcPort(), token, admin, () -> {
      if (!node.alive()) {
        System.out.println("bench: the node had exited (code " + node.awaitExit(Duration.ofSeconds(1)) + "); the end of its log:");
        node.logText().lines().skip(Math.max(0, node.logText().lines().count() - 15)).forEach(l -> System.out.println("bench:   " + l));
      }
      System.out.println("bench: node stopped, exit code " + node.terminate(Duration.ofSeconds(120)));
      node.close();
    });
  }

  /** {@link BareStreamServer} on the node jar's classpath plus this module's test classes. */
  private static Server bareServer(Path root, String heap) throws Exception {
    int port = FreePorts.next();
    Path classes = Path.of(BareStreamServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path log = root.resolve("bare-server.log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap, "-XX:+UseSerialGC"));
    command.addAll(MEASURED_JVM);
    command.addAll(List.of("-cp", NodeProcess.jar() + java.io.File.pathSeparator + classes, BareStreamServer.class.getName(), Integer.toString(port)));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log).contains("bare server ready")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException("bare server did not start:\n" + Files.readString(log));
      }
      Thread.sleep(100);
    }
    System.out.println("bench: " + Files.readString(log).strip() + " (pid " + process.pid() + ")");
    // it checks no credentials: the agents' token is a placeholder
    return new Server(process.pid(), port, "none", "none", () -> {
      process.destroy();
      System.out.println("bench: bare server stopped, exit code " + (process.waitFor(60, TimeUnit.SECONDS) ? process.exitValue() : -1));
    });
  }

  private static Memory measure(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    // read at once: the agents' heartbeats keep allocating, and what they leave is not an idle agent's
    long heapUsed = 0;
    Matcher used = Pattern.compile("used (\\d+)K").matcher(jcmd(pid, "GC.heap_info"));
    while (used.find()) {
      heapUsed += Long.parseLong(used.group(1));
    }
    Thread.sleep(1_000);
    long rss = statusKiB(pid, "VmRSS");
    String nmt = jcmd(pid, "VM.native_memory", "summary");
    long total = committedKiB(nmt, "Total:");
    long heapCommitted = committedKiB(nmt, "Java Heap (");
    Map<String, Long> byCategory = new java.util.TreeMap<>();
    Matcher category = Pattern.compile("(?m)^-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB").matcher(nmt);
    while (category.find()) {
      byCategory.put(category.group(1).strip(), Long.parseLong(category.group(2)));
    }
    return new Memory(rss, heapUsed, total - heapCommitted, heapCommitted, byCategory);
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
    System.out.println("bench: the 30 classes that grew most, bytes per agent:");
    loaded.entrySet().stream()
      .map(e -> Map.entry(e.getKey(), e.getValue() - idle.getOrDefault(e.getKey(), 0L)))
      .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
      .limit(30)
      .forEach(e -> System.out.printf(Locale.ROOT, "bench:   %8.1f  %s%n", e.getValue() / (double) agents, e.getKey()));
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
