package dev.conclave.e2e.swarm;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Who spent the CPU during a phase: the load generator (the threads its HTTP clients ran on), the
 * node (the rest of this JVM), and PostgreSQL (the postmaster of {@code pgDir} and its backends, from
 * /proc). Linux only; on another system the PostgreSQL column reads 0.
 */
final class CpuSplit {

  /** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
  private static final double TICKS = 100.0;

  private final Map<Long, Long> threads0 = new HashMap<>();
  private final long postmaster;
  private final long jvm0;
  private final long pg0;
  private final long jit0;
  private final long wall0;

  private CpuSplit(long postmaster) {
    this.postmaster = postmaster;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (long id : mx.getAllThreadIds()) {
      threads0.put(id, Math.max(0, mx.getThreadCpuTime(id)));
    }
    this.jvm0 = jvmNanos();
    this.pg0 = pgNanos(postmaster);
    this.jit0 = jitNanos();
    this.wall0 = System.nanoTime();
  }

  static CpuSplit start(Path pgDir) throws IOException {
    return new CpuSplit(Long.parseLong(Files.readAllLines(pgDir.resolve("postmaster.pid")).get(0).trim()));
  }

  /** Prints the split since {@link #start}, per completed task as well. */
  void print(String phase, long tasks, Set<Long> clientThreads) {
    double wall = (System.nanoTime() - wall0) / 1e9;
    double client = threadNanos(clientThreads) / 1e9;
    double node = (jvmNanos() - jvm0) / 1e9 - client;
    double pg = (pgNanos(postmaster) - pg0) / 1e9;
    double jit = (jitNanos() - jit0) / 1e9;
    System.out.printf(Locale.ROOT, "CPU during %s (%.1f s wall, %d cores): node %.1f s (%.2f cores, %.0f µs/task), "
        + "PostgreSQL %.1f s (%.2f cores, %.0f µs/task), load generator %.1f s (%.2f cores, %.0f µs/task); "
        + "of the node's, the JIT compiler %.0f µs/task%n", phase, wall,
      Runtime.getRuntime().availableProcessors(), node, node / wall, 1e6 * node / Math.max(1, tasks), pg, pg / wall,
      1e6 * pg / Math.max(1, tasks), client, client / wall, 1e6 * client / Math.max(1, tasks), 1e6 * jit / Math.max(1, tasks));
  }

  /**
   * CPU of this JVM's JIT compiler threads ("C1 CompilerThre…", "C2 CompilerThre…", from /proc): work
   * the node does once, while it warms up, and not per request.
   */
  private static long jitNanos() {
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      return tasks.mapToLong(t -> {
        try {
          if (!Files.readString(t.resolve("comm")).matches("(?s)C\\d CompilerThre.*")) {
            return 0;
          }
          String stat = Files.readString(t.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          return (long) ((Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS * 1e9);
        } catch (IOException | RuntimeException gone) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }

  private static long jvmNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** CPU the threads spent since {@link #start}. */
  private long threadNanos(Set<Long> threads) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    return threads.stream().mapToLong(id -> Math.max(0, mx.getThreadCpuTime(id) - threads0.getOrDefault(id, 0L))).sum();
  }

  /** CPU of the postmaster and its children (the backends, live and exited), from /proc/<pid>/stat. */
  private static long pgNanos(long postmaster) {
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      return procs.filter(p -> p.getFileName().toString().matches("\\d+")).mapToLong(p -> {
        try {
          String stat = Files.readString(p.resolve("stat"));
          // fields after the command name (which may hold spaces) in parentheses
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long pid = Long.parseLong(p.getFileName().toString());
          long ppid = Long.parseLong(f[1]);
          if (pid != postmaster && ppid != postmaster) {
            return 0;
          }
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          if (pid == postmaster) {
            // and its backends that have exited (their CPU is added to the parent's when reaped)
            ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
          }
          return (long) (ticks / TICKS * 1e9);
        } catch (IOException | RuntimeException gone) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }
}
