package dev.conclave.e2e.support;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How every benchmark program ends: {@code main} is {@code BenchMain.run(Bench.class, () -> …)}.
 *
 * <p>A benchmark runs inside Maven ({@code exec:java}), usually with {@code -q}. An exception out of
 * {@code main} is then logged at WARN, which {@code -q} hides, and {@code exec:java} waits for every
 * non-daemon thread first: one Vert.x instance left open kept such a run alive for ever, silent
 * (ClusterBench at 2,000 agents, issue 45). Here the body's failure is printed to stderr with its
 * stack trace, the processes the program started and left running (nodes, PostgreSQL) are stopped,
 * and the JVM exits: 0 when the body returned, 1 when it threw. A body that has not ended after
 * {@code -Dbench.deadline} (a duration, {@code PT3H} by default) is abandoned: its thread's stack is
 * printed, and the JVM exits 2.
 */
public final class BenchMain {

  /** A benchmark's measured work; it closes what it opens, as any code does. */
  @FunctionalInterface
  public interface Body {
    void run() throws Exception;
  }

  static final int FAILED = 1;
  static final int TIMED_OUT = 2;
  private static final Duration DEFAULT_DEADLINE = Duration.ofHours(3);

  private BenchMain() {
  }

  /** Runs {@code body} on this thread and exits the JVM: never returns. */
  public static void run(Class<?> bench, Body body) {
    String name = bench.getSimpleName();
    Duration deadline = Duration.parse(System.getProperty("bench.deadline", DEFAULT_DEADLINE.toString()));
    Thread benchThread = Thread.currentThread();
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(deadline.toMillis());
      } catch (InterruptedException ended) {
        return;
      }
      System.out.flush();
      System.err.printf(Locale.ROOT, "%s: did not end within %s (-Dbench.deadline); where it was:%n", name, deadline);
      for (StackTraceElement frame : benchThread.getStackTrace()) {
        System.err.println("\tat " + frame);
      }
      exit(name, TIMED_OUT);
    }, name + "-deadline");
    watchdog.setDaemon(true);
    watchdog.start();
    int code;
    try {
      body.run();
      code = 0;
    } catch (Throwable failed) {
      System.out.flush();
      System.err.println(name + ": failed: " + failed);
      failed.printStackTrace(System.err);
      code = FAILED;
    }
    watchdog.interrupt();
    exit(name, code);
  }

  /**
   * A benchmark that completed nothing measured nothing: a run in which every round trip failed (or
   * none was sent) must not end as a success (issue 48: GatewayBench failed every round trip for days
   * after access control, and exited 0). Returns {@code completed}; throws when it is below 1.
   */
  public static long requireCompleted(String what, long completed) {
    if (completed < 1) {
      throw new IllegalStateException("no " + what + " completed: a run that completed nothing measured nothing");
    }
    return completed;
  }

  private static void exit(String name, int code) {
    stopChildren(name, System.err);
    System.out.flush();
    System.err.flush();
    if (code != 0) {
      System.err.println(name + ": exit code " + code);
    }
    System.exit(code);
  }

  /**
   * What the program started and did not stop (a node a failed phase left behind, its PostgreSQL):
   * asked to stop, then killed after 20 s. Only this JVM's own descendants.
   */
  private static void stopChildren(String name, PrintStream log) {
    List<ProcessHandle> children = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    if (children.isEmpty()) {
      return;
    }
    Map<Long, String> commands = new java.util.TreeMap<>();
    children.forEach(c -> commands.put(c.pid(), c.info().command().orElse("?")));
    log.println(name + ": stopping processes it left running: " + commands);
    // a child's own children (a node's embedded PostgreSQL) go when the child stops gracefully
    children.forEach(ProcessHandle::destroy);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    for (ProcessHandle c : children) {
      try {
        c.onExit().get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception stillThere) {
        c.descendants().forEach(ProcessHandle::destroyForcibly);
        c.destroyForcibly();
      }
    }
  }
}
