package dev.conclave.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.e2e.cluster.BridgeBench;
import dev.conclave.e2e.cluster.ClusterBench;
import dev.conclave.e2e.cluster.ScaleBench;
import dev.conclave.e2e.swarm.SwarmBench;
import dev.conclave.e2e.swarm.SwarmSqlBench;
import dev.conclave.e2e.support.TestJvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Benchmarks never rot unseen (issue 48): GatewayBench failed every round trip for days after access
 * control, because no benchmark ran in CI. Each benchmark program runs here in a seconds-long
 * configuration, as a JVM of its own on this module's test class path (its {@code System.exit}, its
 * node processes and a hang cannot reach this JVM), and must exit 0 having completed operations: every
 * line its summary prints for a measured phase must count more than zero. A timing is never checked.
 *
 * <p>Adding a program is one line in {@link #programs()}: its class, the node processes it starts, how
 * many summary lines it prints in this configuration, the pattern of such a line (group 1: the operations it completed), and its
 * smallest configuration as {@code -D} properties.
 */
class BenchmarksSmokeIT {

  /** One program's smoke run; {@code nodes}: the node processes (or PostgreSQL servers) it runs at once. */
  record Smoke(Class<?> program, int nodes, int lines, Pattern completed, List<String> properties) {

    static Smoke of(Class<?> program, int nodes, int lines, String completed, String... properties) {
      return new Smoke(program, nodes, lines, Pattern.compile("(?m)^" + completed), List.of(properties));
    }

    @Override
    public String toString() {
      return program.getSimpleName();
    }
  }

  /**
   * A hang's bound, not a timing: a program that has not ended by then is stopped (its own deadline,
   * -Dbench.deadline, comes first and prints where it was). On 2 busy cores a node start took 77 s.
   */
  private static final Duration LIMIT = Duration.ofMinutes(8);
  private static final Path OUTPUT = Path.of("target", "benchmarks-smoke");

  static Stream<Smoke> programs() {
    return Stream.of(
      Smoke.of(GatewayBench.class, 1, 3, "bench: (?:gateway round trip|bare gRPC unary echo|bare gRPC stream echo): (\\d+) requests",
        "-Dbench.agents=2", "-Dbench.clients=1", "-Dbench.chunks=1", "-Dbench.warmup=2", "-Dbench.seconds=2", "-Dbench.bareWarmup=0",
        "-Dbench.bareSeconds=1"),
      // tracing on (off is GatewayBench's own run): the node exports every span to the bench's receiver
      Smoke.of(TracingCostBench.class, 1, 1, "bench: gateway round trip: (\\d+) requests",
        "-Dbench.shapes=1x1", "-Dbench.tracing=100", "-Dbench.rounds=1", "-Dbench.chunks=1", "-Dbench.warmup=2", "-Dbench.seconds=2"),
      Smoke.of(PackBench.class, 2, 3, "bench: (?:same node|across nodes|bare gRPC echo): warm-up \\d+ calls .*; measured (\\d+) calls",
        "-Dbench.agents=2", "-Dbench.jitWarmup=0", "-Dbench.warmup=1", "-Dbench.seconds=2"),
      Smoke.of(StartupBench.class, 1, 2, "startup-bench: (?:cold|token-alone) (\\d+): \\d+ ms",
        "-Dbench.runs=1", "-Dbench.kinds=cold,token-alone"),
      Smoke.of(AgentMemoryBench.class, 1, 1, "bench: (\\d+) of \\d+ agents served one request each",
        "-Dbench.agents=30", "-Dbench.serve=5"),
      Smoke.of(ClusterBench.class, 3, 3, "(?:client and agent on node-1 |client on node-2, agent on node-1 |failover after kill -9 of node-1 \\()\\s*(\\d+)",
        "-Dbench.agents=3", "-Dbench.requests=5", "-Dbench.concurrency=2", "-Dbench.moveSeconds=120"),
      Smoke.of(BridgeBench.class, 3, 1, "messages sent: (\\d+)",
        "-Dbench.sockets=3", "-Dbench.conversations=2", "-Dbench.seconds=2"),
      Smoke.of(ScaleBench.class, 3, 2, "(?:scale: \\d+ agents, moved |steady load: \\d+ clients, )(\\d+)",
        "-Dbench.agents=30", "-Dbench.clients=2", "-Dbench.before.seconds=1", "-Dbench.phase.seconds=120"),
      Smoke.of(SwarmBench.class, 1, 6, "(?:http claim\\+complete, \\d+ agents: |floor claim\\+complete, \\d+ agents, \\d+ event loops: "
          + "|raw single-statement SKIP LOCKED claim, \\d+ connections \\((?:before|after)\\): )(\\d+) (?:tasks|claims) in",
        "-Dswarm.bench.tasks=40", "-Dswarm.bench.agents=4", "-Dswarm.bench.seconds=30", "-Dswarm.bench.warmup=0"),
      // a small old ledger: the purge is over within a second, so the phases check the workload and that retention ran
      Smoke.of(RetentionBench.class, 2, 2, "[AB]\\d retention (?:off|on)\\s+(\\d+)",
        "-Dbench.events=20000", "-Dbench.pairs=1", "-Dbench.agents=4", "-Dbench.clients=2", "-Dbench.warmup=2", "-Dbench.phaseSeconds=3",
        "-Dbench.phaseWarmup=1", "-Dbench.growthSeconds=2"),
      Smoke.of(SwarmSqlBench.class, 1, 2, "round 1: (?:claim\\+complete in batches of \\d+|raw single-statement claim): (\\d+) (?:tasks|claims)",
        "-Dswarm.sql.tasks=40", "-Dswarm.sql.batch=4", "-Dswarm.sql.rounds=1"));
  }

  /** What one program's run left: whether it ended, its exit code, its output, how long it took. */
  record Outcome(boolean ended, int code, String stdout, String report, long seconds) {
  }

  /**
   * Every program starts in {@link #startAll}, {@link #LANES} at a time (much of a run is waiting:
   * for a node to be ready, for a window to pass), so that the whole class stays within minutes; each
   * case then waits for its own program and checks it.
   */
  private static final int LANES = Integer.getInteger("bench.smoke.lanes", 2);
  /**
   * Node processes running at once, at most: a 3-node program runs alone. Two 3-node clusters side by
   * side would not fit a small CI machine's memory, and on 2 cores two programs starting nodes at once
   * slowed each other past their own limits (PackBench's token command timed out waiting for PostgreSQL
   * while StartupBench started its node, at a load average of 28).
   */
  private static final Semaphore NODES = new Semaphore(3, true);
  private static final Map<String, Future<Outcome>> RUNS = new ConcurrentHashMap<>();
  private static ExecutorService lanes;

  @BeforeAll
  static void startAll() throws IOException {
    Files.createDirectories(OUTPUT);
    lanes = Executors.newFixedThreadPool(LANES);
    programs().forEach(smoke -> RUNS.put(smoke.toString(), lanes.submit(() -> run(smoke))));
    lanes.shutdown();
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    if (lanes != null) {
      lanes.shutdownNow();
      lanes.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("programs")
  void runsToTheEndAndCompletesOperations(Smoke smoke) throws Exception {
    String name = smoke.toString();
    Outcome run = RUNS.get(name).get(LIMIT.toSeconds() * programs().count() / LANES + 60, TimeUnit.SECONDS);
    assertThat(run.ended()).as("%s ends within %s: %s", name, LIMIT, run.report()).isTrue();
    assertThat(run.code()).as("%s exit code: %s", name, run.report()).isZero();
    List<Long> counts = new ArrayList<>();
    Matcher m = smoke.completed().matcher(run.stdout());
    while (m.find()) {
      counts.add(Long.parseLong(m.group(1)));
    }
    assertThat(counts).as("%s: operations completed in each summary line '%s': %s", name, smoke.completed(), run.report())
      .hasSizeGreaterThanOrEqualTo(smoke.lines())
      .allSatisfy(n -> assertThat(n).isPositive());
  }

  /** Runs a program as a JVM of its own; one that does not end within {@link #LIMIT} is killed with what it started. */
  private static Outcome run(Smoke smoke) throws IOException, InterruptedException {
    String name = smoke.toString();
    Path out = OUTPUT.resolve(name + ".out");
    Path err = OUTPUT.resolve(name + ".err");
    // a smoke run measures nothing: the program and the processes it starts get the options of a test's processes
    List<String> command = new ArrayList<>(TestJvm.command("768m",
      "-D" + TestJvm.OPTIONS + "=" + String.join(" ", TestJvm.options()),
      "-Dconclave.node.jar=" + System.getProperty("conclave.node.jar"), "-Dbench.deadline=" + LIMIT.minusSeconds(30),
      // a cluster member's readiness bound (LocalCluster, 120 s by default): on 2 busy cores (load average 27) a node took longer
      "-Dconclave.cluster.readySeconds=300"));
    command.addAll(smoke.properties());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), smoke.program().getName()));
    NODES.acquire(smoke.nodes());
    try {
      return run(smoke, command, out, err);
    } finally {
      NODES.release(smoke.nodes());
    }
  }

  private static Outcome run(Smoke smoke, List<String> command, Path out, Path err) throws IOException, InterruptedException {
    String name = smoke.toString();
    long start = System.nanoTime();
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    boolean ended = false;
    try {
      ended = p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS);
    } finally {
      if (!ended) {
        // its nodes and their PostgreSQL first: once it is gone they are no longer its descendants
        p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    String stdout = read(out);
    String report = String.format("%s (%d s; output in %s and %s)%nstdout:%n%s%nstderr:%n%s", name, seconds, out.toAbsolutePath(),
      err.toAbsolutePath(), tail(stdout), tail(read(err)));
    System.out.printf("benchmark smoke: %s ended %s in %d s (load average %s)%n", name, ended ? "with exit code " + p.exitValue() : "not at all",
      seconds, Files.readString(Path.of("/proc/loadavg")).strip());
    return new Outcome(ended, ended ? p.exitValue() : -1, stdout, report, seconds);
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }

  /** The end of a long output: where a run stopped is there. */
  private static String tail(String text) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
