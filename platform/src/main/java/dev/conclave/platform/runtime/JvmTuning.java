package dev.conclave.platform.runtime;

/**
 * JVM settings the node needs before anything starts. On a machine (or container) with two CPUs
 * or fewer, the JDK's common fork-join pool has a parallelism of one, and Hazelcast then runs the
 * callbacks of its futures on a new thread per operation: every shared-map read started a thread
 * (measured: a quarter to a third of the node's CPU in the pack benchmark). A parallelism of at
 * least two keeps those callbacks on pooled threads. An explicit setting always wins.
 */
public final class JvmTuning {

  static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";
  static final int MIN_COMMON_POOL = 2;

  private JvmTuning() {
  }

  /** Call first thing in {@code main}: it only works before the common pool is first used. */
  public static void apply() {
    if (System.getProperty(COMMON_POOL_PARALLELISM) == null && Runtime.getRuntime().availableProcessors() - 1 < MIN_COMMON_POOL) {
      System.setProperty(COMMON_POOL_PARALLELISM, Integer.toString(MIN_COMMON_POOL));
    }
  }
}
