package dev.conclave.e2e.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * CPU time of the processes a benchmark involves, read from {@code /proc/<pid>/stat} (user plus
 * system time, in clock ticks of 10 ms), and of single threads of the benchmark's own JVM. A
 * {@link Sample} taken at the start and at the end of a window gives each part's share of the CPU
 * over that window. For node processes it also splits the time by thread
 * ({@code /proc/<pid>/task/<tid>/stat}): event loops, Hazelcast, JIT compiler, and threads that
 * ended within the window (their time is the process's minus that of the threads still alive). On a
 * system without {@code /proc} every value reads as 0.
 */
public final class ProcCpu {

  /** Linux's USER_HZ: the unit of utime and stime in /proc/&lt;pid&gt;/stat. */
  private static final long TICK_NANOS = 10_000_000L;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** The groups a node's threads are split into, by thread name prefix; in this order. */
  static final List<String> GROUPS = List.of("event loops", "hazelcast", "JIT compiler", "GC and VM", "other threads", "threads that ended");

  /** CPU nanoseconds per named part at one instant, and per thread (tid → name and nanos) of the processes split by thread. */
  public record Sample(long wallNanos, Map<String, Long> cpuNanos, Map<String, Map<Long, ThreadTime>> threads) {

    /** Cores each part kept busy from {@code start} to this sample. */
    Map<String, Double> coresSince(Sample start) {
      double wall = wallNanos - start.wallNanos;
      Map<String, Double> out = new LinkedHashMap<>();
      cpuNanos.forEach((part, nanos) -> out.put(part, (nanos - start.cpuNanos.getOrDefault(part, 0L)) / wall));
      return out;
    }

    /** CPU microseconds each part spent from {@code start} to this sample, per {@code calls}. */
    Map<String, Double> microsPerCall(Sample start, long calls) {
      Map<String, Double> out = new LinkedHashMap<>();
      cpuNanos.forEach((part, nanos) -> out.put(part, calls == 0 ? Double.NaN : (nanos - start.cpuNanos.getOrDefault(part, 0L)) / 1e3 / calls));
      return out;
    }

    /** Per split process: each thread group's share (0..1) of the process's CPU from {@code start} to this sample. */
    public Map<String, Map<String, Double>> threadSplitSince(Sample start) {
      Map<String, Map<String, Double>> out = new LinkedHashMap<>();
      threads.forEach((part, now) -> {
        Map<Long, ThreadTime> before = start.threads.getOrDefault(part, Map.of());
        long total = cpuNanos.get(part) - start.cpuNanos.getOrDefault(part, 0L);
        Map<String, Long> nanos = new LinkedHashMap<>();
        GROUPS.forEach(g -> nanos.put(g, 0L));
        long alive = 0;
        for (Map.Entry<Long, ThreadTime> t : now.entrySet()) {
          ThreadTime b = before.get(t.getKey());
          long d = t.getValue().nanos() - (b == null ? 0 : b.nanos());
          alive += d;
          nanos.merge(group(t.getValue().name()), d, Long::sum);
        }
        nanos.put("threads that ended", Math.max(0, total - alive));
        Map<String, Double> shares = new LinkedHashMap<>();
        nanos.forEach((g, n) -> shares.put(g, total <= 0 ? Double.NaN : (double) n / total));
        out.put(part, shares);
      });
      return out;
    }
  }

  /** A thread's name and CPU time so far. */
  public record ThreadTime(String name, long nanos) {
  }

  private final Map<String, LongSupplier> parts = new LinkedHashMap<>();
  private final Map<String, Long> splitByThread = new LinkedHashMap<>();

  /** A process's own CPU time (its threads; not children it has not reaped). */
  ProcCpu process(String part, long pid) {
    parts.put(part, () -> processNanos(pid, false));
    return this;
  }

  /** A process whose time is also split by thread group (see {@link Sample#threadSplitSince}). */
  public ProcCpu processByThread(String part, long pid) {
    splitByThread.put(part, pid);
    return process(part, pid);
  }

  /**
   * A process and its live children, plus the children it has reaped: how PostgreSQL's postmaster
   * and its backends add up.
   */
  public ProcCpu processTree(String part, long pid) {
    parts.put(part, () -> processNanos(pid, true) + children(pid).stream().mapToLong(c -> processNanos(c, false)).sum());
    return this;
  }

  /** One thread of this JVM. */
  ProcCpu thread(String part, Thread thread) {
    parts.put(part, () -> Math.max(THREADS.getThreadCpuTime(thread.getId()), 0));
    return this;
  }

  /** This JVM (every thread). */
  ProcCpu self(String part) {
    return process(part, ProcessHandle.current().pid());
  }

  public Sample sample() {
    Map<String, Map<Long, ThreadTime>> threads = new LinkedHashMap<>();
    splitByThread.forEach((part, pid) -> threads.put(part, threads(pid)));
    Map<String, Long> cpu = new LinkedHashMap<>();
    parts.forEach((part, supplier) -> cpu.put(part, supplier.getAsLong()));
    return new Sample(System.nanoTime(), cpu, threads);
  }

  /** Groups a thread by its Linux name ({@code comm}: the Java name cut to 15 characters). */
  static String group(String threadName) {
    if (threadName.startsWith("vert.x-eventloo")) {
      return "event loops";
    }
    if (threadName.startsWith("hz.")) {
      return "hazelcast";
    }
    if (threadName.startsWith("C1 Compiler") || threadName.startsWith("C2 Compiler")) {
      return "JIT compiler";
    }
    if (threadName.startsWith("VM ") || threadName.contains("GC") || threadName.startsWith("Sweeper")) {
      return "GC and VM";
    }
    return "other threads";
  }

  /** utime + stime (+ cutime + cstime), in nanoseconds; 0 when the process is gone. */
  public static long processNanos(long pid, boolean withReapedChildren) {
    return stat(Path.of("/proc", Long.toString(pid), "stat")).map(f -> {
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      if (withReapedChildren) {
        ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
      }
      return ticks * TICK_NANOS;
    }).orElse(0L);
  }

  private static Map<Long, ThreadTime> threads(long pid) {
    Map<Long, ThreadTime> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      tasks.forEach(task -> {
        try {
          String line = Files.readString(task.resolve("stat"));
          String name = line.substring(line.indexOf('(') + 1, line.lastIndexOf(')'));
          String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
          out.put(Long.parseLong(task.getFileName().toString()), new ThreadTime(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_NANOS));
        } catch (IOException | RuntimeException gone) {
          // the thread ended while we listed them
        }
      });
    } catch (IOException | RuntimeException e) {
      // no /proc, or the process is gone
    }
    return out;
  }

  private static List<Long> children(long parent) {
    List<Long> out = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit)).forEach(n -> {
        long pid = Long.parseLong(n);
        stat(Path.of("/proc", n, "stat")).ifPresent(f -> {
          if (Long.parseLong(f[1]) == parent) {
            out.add(pid);
          }
        });
      });
    } catch (IOException | RuntimeException e) {
      // no /proc: nothing to add
    }
    return out;
  }

  /** The fields of a stat file after the command name: [0] is the state, [1] the parent pid, [11] utime. */
  private static Optional<String[]> stat(Path file) {
    try {
      String line = Files.readString(file);
      return Optional.of(line.substring(line.lastIndexOf(')') + 2).split(" "));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The pid in the first line of a PostgreSQL data dir's postmaster.pid. */
  public static OptionalLong postmasterPid(Path dataDir) {
    try {
      return OptionalLong.of(Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim()));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
