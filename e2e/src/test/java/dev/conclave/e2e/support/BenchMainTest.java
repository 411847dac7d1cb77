package dev.conclave.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every benchmark ends (issue 45): each program below runs as a real JVM on this module's test class
 * path, with a Vert.x instance left open (its event-loop threads are not daemons), as ClusterBench's
 * failed first start did.
 */
class BenchMainTest {

  @TempDir
  Path dir;

  record Run(int code, String out, String err) {
  }

  /** A phase fails while Vert.x is open: the error is printed and the JVM exits 1. */
  public static final class FailingPhase {
    public static void main(String[] args) {
      BenchMain.run(FailingPhase.class, () -> {
        Vertx.vertx().setPeriodic(1000, t -> { });
        System.out.println("cluster ready");
        throw new IllegalStateException("agent 1001 did not register within 60 s");
      });
    }
  }

  /** Measured and printed, with Vert.x still open: exit 0. */
  public static final class Succeeding {
    public static void main(String[] args) {
      BenchMain.run(Succeeding.class, () -> {
        Vertx.vertx().setPeriodic(1000, t -> { });
        System.out.println("result: 42 req/s");
      });
    }
  }

  /** Every round trip failed: errors counted, none completed. It must not exit 0 (issue 48). */
  public static final class CompletesNothing {
    public static void main(String[] args) {
      BenchMain.run(CompletesNothing.class, () -> {
        long completed = 0;
        long errors = 40;
        System.out.println("gateway round trip: " + completed + " requests, " + errors + " errors");
        BenchMain.requireCompleted("gateway round trips", completed);
      });
    }
  }

  /**
   * A phase that never ends: abandoned at the deadline, exit 2, with where it was. The deadline is
   * 20 s, not 3: on 2 cores at a load average of 27, Vertx.vertx() alone had not returned after 3 s,
   * and the stack printed was still in it.
   */
  public static final class Hanging {
    public static void main(String[] args) {
      BenchMain.run(Hanging.class, () -> {
        Vertx.vertx();
        waitForEver();
      });
    }

    private static void waitForEver() throws InterruptedException {
      new java.util.concurrent.CountDownLatch(1).await();
    }
  }

  /** A failed phase leaves a child process (a node) running: it is stopped. Prints the child's pid. */
  public static final class LeavesAChild {
    public static void main(String[] args) {
      BenchMain.run(LeavesAChild.class, () -> {
        Process child = new ProcessBuilder("sleep", "600").start();
        System.out.println("child " + child.pid());
        throw new IllegalStateException("node-2 did not become ready");
      });
    }
  }

  private Run run(Class<?> program, String... jvmOptions) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), program.getName()));
    Path out = dir.resolve(program.getSimpleName() + ".out");
    Path err = dir.resolve(program.getSimpleName() + ".err");
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    boolean ended = p.waitFor(90, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    Run run = new Run(ended ? p.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    assertThat(ended).as("%s ends by itself (stdout: %s, stderr: %s)", program.getSimpleName(), run.out(), run.err()).isTrue();
    return run;
  }

  @Test
  void aFailedPhasePrintsItsErrorAndExitsNonZeroThoughVertxIsOpen() throws Exception {
    Run run = run(FailingPhase.class);
    assertThat(run.code()).isEqualTo(BenchMain.FAILED);
    assertThat(run.out()).contains("cluster ready");
    assertThat(run.err()).contains("FailingPhase: failed: java.lang.IllegalStateException: agent 1001 did not register within 60 s")
      .contains("at dev.conclave.e2e.support.BenchMainTest$FailingPhase");
  }

  @Test
  void aBenchmarkThatEndsExitsZeroThoughVertxIsOpen() throws Exception {
    Run run = run(Succeeding.class);
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("result: 42 req/s");
  }

  @Test
  void aRunThatCompletedNothingExitsNonZero() throws Exception {
    Run run = run(CompletesNothing.class);
    assertThat(run.code()).as(run.out()).isEqualTo(BenchMain.FAILED);
    assertThat(run.err()).contains("CompletesNothing: failed: java.lang.IllegalStateException: no gateway round trips completed");
  }

  @Test
  void aCountOfCompletedOperationsAboveZeroPasses() {
    assertThat(BenchMain.requireCompleted("claims", 3)).isEqualTo(3);
  }

  @Test
  void aPhaseThatNeverEndsIsAbandonedAtTheDeadlineWithWhereItWas() throws Exception {
    Run run = run(Hanging.class, "-Dbench.deadline=PT20S");
    assertThat(run.code()).isEqualTo(BenchMain.TIMED_OUT);
    assertThat(run.err()).contains("Hanging: did not end within PT20S").contains("BenchMainTest$Hanging.waitForEver");
  }

  @Test
  void processesAFailedPhaseLeftRunningAreStopped() throws Exception {
    Run run = run(LeavesAChild.class);
    assertThat(run.code()).isEqualTo(BenchMain.FAILED);
    long pid = Long.parseLong(run.out().lines().filter(l -> l.startsWith("child ")).findFirst().orElseThrow().substring(6));
    assertThat(run.err()).contains("node-2 did not become ready").contains("stopping processes it left running");
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the child %d is gone", pid).isFalse();
  }

  /** Each benchmark program in this module goes through BenchMain: a new one that does not fails here. */
  @Test
  void everyBenchmarkMainGoesThroughBenchMain() throws IOException {
    List<String> without = new ArrayList<>();
    List<String> benches = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
      for (Path f : files.filter(p -> p.getFileName().toString().endsWith("Bench.java")).toList()) {
        String source = Files.readString(f);
        if (source.contains("public static void main(")) {
          benches.add(f.getFileName().toString());
          if (!source.contains("BenchMain.run(")) {
            without.add(f.getFileName().toString());
          }
        }
      }
    }
    assertThat(benches).contains("ClusterBench.java", "GatewayBench.java", "AgentMemoryBench.java", "SwarmBench.java");
    assertThat(without).as("benchmark programs whose main does not go through BenchMain.run").isEmpty();
  }
}
