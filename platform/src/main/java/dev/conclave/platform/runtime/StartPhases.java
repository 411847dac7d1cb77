package dev.conclave.platform.runtime;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a node's start went, for its ready line: {@code took=1412ms (jvm 310, setup 12, postgres 420,
 * migrations 180, cluster 30, auth 120, roles 390, listen 40)}. The phases are contiguous: each ends
 * where the next begins, so they add up to the total. {@code jvm} is the time from the JVM's start to
 * {@link NodeRuntime#start} (class loading, logging, the command line); a phase a node does not have
 * (embedded PostgreSQL on an external database) shows 0. Embedded PostgreSQL starts beside Vert.x, so
 * {@code postgres} is the wait for it that is left once {@code cluster} is done (the phases are printed
 * in this fixed order, not the order they ran in). Started and read by one thread.
 */
public final class StartPhases {

  /** Every phase, in the order a node goes through them. */
  static final List<String> PHASES = List.of("jvm", "setup", "postgres", "migrations", "cluster", "auth", "roles", "listen");

  private static final AtomicBoolean FIRST = new AtomicBoolean(true);

  private final Map<String, Long> nanos = new LinkedHashMap<>();
  private long last;

  private StartPhases(long jvmMillis, long now) {
    for (String phase : PHASES) {
      nanos.put(phase, 0L);
    }
    nanos.put("jvm", jvmMillis * 1_000_000);
    this.last = now;
  }

  /**
   * Begins timing now. What the JVM did before counts as {@code jvm} for the first node this JVM
   * starts; a later one (tests start many in one JVM) did not pay for the JVM, and shows 0.
   */
  public static StartPhases begin() {
    long uptime = 0;
    if (FIRST.compareAndSet(true, false)) {
      try {
        uptime = ManagementFactory.getRuntimeMXBean().getUptime();
      } catch (RuntimeException | LinkageError e) {
        uptime = 0; // no management module (a trimmed runtime): the split still adds up, from here
      }
    }
    return new StartPhases(Math.max(0, uptime), System.nanoTime());
  }

  /** For tests: as if the JVM had run {@code jvmMillis} before this. */
  static StartPhases begin(long jvmMillis, long nowNanos) {
    return new StartPhases(jvmMillis, nowNanos);
  }

  /** The time since the previous mark (or the beginning) was spent in {@code phase}. */
  public void mark(String phase) {
    mark(phase, System.nanoTime());
  }

  void mark(String phase, long nowNanos) {
    if (!nanos.containsKey(phase)) {
      throw new IllegalArgumentException("not a start phase: " + phase);
    }
    nanos.merge(phase, nowNanos - last, Long::sum);
    last = nowNanos;
  }

  /** Milliseconds spent in {@code phase} so far, rounded. */
  public long millis(String phase) {
    return Math.round(nanos.getOrDefault(phase, 0L) / 1e6);
  }

  /** The sum of the split as printed: the JVM's part and every phase marked. */
  public long totalMillis() {
    return nanos.keySet().stream().mapToLong(this::millis).sum();
  }

  /** {@code took=1412ms (jvm 310, setup 12, …)}, as the ready line ends. */
  public String describe() {
    StringJoiner split = new StringJoiner(", ", " (", ")");
    nanos.keySet().forEach(phase -> split.add(phase + " " + millis(phase)));
    return "took=" + totalMillis() + "ms" + split;
  }
}
