package dev.conclave.e2e.swarm;

import dev.conclave.e2e.bench.ProcCpu;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who spent the CPU during a phase: the load generator (the threads its HTTP clients ran on), the
 * node (the rest of this JVM, with the JIT compiler's share of it; or, when the node runs in a
 * process of its own, that process, and the load generator is all of this JVM), and PostgreSQL (the
 * postmaster of {@code pgDir} and its backends). Read from /proc through {@link ProcCpu}; on a system
 * without it those columns read 0.
 */
final class CpuSplit {

  private static final String JVM = "jvm";
  private static final String POSTGRES = "postgres";
  private static final String NODE = "node";

  private final Map<Long, Long> threads0 = new HashMap<>();
  private final ProcCpu cpu;
  private final ProcCpu.Sample start;

  private final Optional<Long> nodePid;

  private CpuSplit(long postmaster, Optional<Long> nodePid) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (long id : mx.getAllThreadIds()) {
      threads0.put(id, Math.max(0, mx.getThreadCpuTime(id)));
    }
    this.nodePid = nodePid;
    ProcCpu procs = new ProcCpu().processByThread(JVM, ProcessHandle.current().pid()).processTree(POSTGRES, postmaster);
    nodePid.ifPresent(pid -> procs.processByThread(NODE, pid));
    this.cpu = procs;
    this.start = cpu.sample();
  }

  /** @param nodePid the node's process, when it is not this JVM */
  static CpuSplit start(Path pgDir, Optional<Long> nodePid) {
    return new CpuSplit(ProcCpu.postmasterPid(pgDir).orElseThrow(() -> new IllegalStateException("no postmaster.pid in " + pgDir)),
      nodePid);
  }

  /** Prints the split since {@link #start}, per completed task as well. */
  void print(String phase, long tasks, Set<Long> clientThreads) {
    ProcCpu.Sample end = cpu.sample();
    double wall = (end.wallNanos() - start.wallNanos()) / 1e9;
    double jvm = (end.cpuNanos().get(JVM) - start.cpuNanos().get(JVM)) / 1e9;
    String nodeKey = nodePid.isPresent() ? NODE : JVM;
    double nodeProcess = (end.cpuNanos().get(nodeKey) - start.cpuNanos().get(nodeKey)) / 1e9;
    double client = nodePid.isPresent() ? jvm : threadNanos(clientThreads) / 1e9;
    double node = nodePid.isPresent() ? nodeProcess : jvm - client;
    double pg = (end.cpuNanos().get(POSTGRES) - start.cpuNanos().get(POSTGRES)) / 1e9;
    double jitShare = end.threadSplitSince(start).get(nodeKey).getOrDefault("JIT compiler", 0.0);
    double jit = Double.isNaN(jitShare) ? 0 : jitShare * nodeProcess;
    System.out.printf(Locale.ROOT, "CPU during %s (%.1f s wall, %d cores): node %.1f s (%.2f cores, %.0f µs/task), "
        + "PostgreSQL %.1f s (%.2f cores, %.0f µs/task), load generator %.1f s (%.2f cores, %.0f µs/task); "
        + "of the node's, the JIT compiler %.0f µs/task%n", phase, wall,
      Runtime.getRuntime().availableProcessors(), node, node / wall, 1e6 * node / Math.max(1, tasks), pg, pg / wall,
      1e6 * pg / Math.max(1, tasks), client, client / wall, 1e6 * client / Math.max(1, tasks), 1e6 * jit / Math.max(1, tasks));
  }

  /** CPU the threads spent since {@link #start}. */
  private long threadNanos(Set<Long> threads) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    return threads.stream().mapToLong(id -> Math.max(0, mx.getThreadCpuTime(id) - threads0.getOrDefault(id, 0L))).sum();
  }
}
