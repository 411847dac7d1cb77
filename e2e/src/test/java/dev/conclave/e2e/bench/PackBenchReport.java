package dev.conclave.e2e.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Prints {@link PackBench}'s tables. */
final class PackBenchReport {

  private static final String PACK_THREAD = "pack (in bench JVM)";

  private PackBenchReport() {
  }

  static void print(PackBenchSettings s, List<PackScenario.Result> results, List<String> notes) {
    System.out.println();
    System.out.printf(Locale.ROOT, "Pack tool calls: %d agents, %d call(s) in flight each, %d-character payload echoed; warm-up %d s, measured %d s%n",
      s.agents(), s.inFlight(), s.payload(), s.warmup().toSeconds(), s.measure().toSeconds());
    String header = String.format(Locale.ROOT, "%-16s %-9s %9s %9s %8s %8s %8s %8s %7s",
      "scenario", "window", "calls", "calls/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors");
    System.out.println(header);
    System.out.println("-".repeat(header.length()));
    for (PackScenario.Result r : results) {
      row(r.name(), "warm-up", r.warmup());
      row("", "measured", r.measured());
    }

    System.out.println();
    System.out.println("CPU over the measured window: cores busy (CPU µs per completed call); the pack thread is part of the bench JVM");
    Set<String> parts = new LinkedHashSet<>();
    results.forEach(r -> parts.addAll(r.cores().keySet()));
    StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-16s", "scenario"));
    parts.forEach(p -> h.append(String.format(Locale.ROOT, " %21s", p)));
    h.append(String.format(Locale.ROOT, " %21s", "all processes"));
    System.out.println(h);
    System.out.println("-".repeat(h.length()));
    for (PackScenario.Result r : results) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-16s", r.name()));
      double cores = 0;
      double micros = 0;
      for (String p : parts) {
        Double c = r.cores().get(p);
        Double us = r.microsPerCall().get(p);
        line.append(c == null ? String.format(Locale.ROOT, " %21s", "-") : String.format(Locale.ROOT, " %8.2f (%8.1f µs)", c, us));
        if (c != null && !p.equals(PACK_THREAD)) {
          cores += c;
          micros += us;
        }
      }
      line.append(String.format(Locale.ROOT, " %8.2f (%8.1f µs)", cores, micros));
      System.out.println(line);
    }

    System.out.println();
    System.out.println("Where each node's CPU went over the measured window (share of that node's CPU time, by thread)");
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%-16s %-7s", "scenario", "node"));
    ProcCpu.GROUPS.forEach(g -> t.append(String.format(Locale.ROOT, " %18s", g)));
    System.out.println(t);
    System.out.println("-".repeat(t.length()));
    for (PackScenario.Result r : results) {
      r.threadSplit().forEach((node, shares) -> {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-16s %-7s", r.name(), node));
        ProcCpu.GROUPS.forEach(g -> line.append(String.format(Locale.ROOT, " %17.0f%%", 100 * shares.getOrDefault(g, Double.NaN))));
        System.out.println(line);
      });
    }

    System.out.println();
    for (PackScenario.Result r : results) {
      packHostTime(r, s.agents() * s.inFlight());
    }
    notes.forEach(n -> System.out.println("note: " + n));
  }

  private static void row(String scenario, String window, Recorder.Result r) {
    System.out.printf(Locale.ROOT, "%-16s %-9s %9d %9.1f %8.2f %8.2f %8.2f %8.2f %7d%n", scenario, window, r.requests(),
      r.requestsPerSecond(), r.p50(), r.p90(), r.p99(), r.max(), r.errors());
  }

  /**
   * The pack host's own timer (registry lookup on the pack's node to the pack's outcome), per node,
   * beside the agents' mean latency, which a closed loop gives by Little's law: calls in flight
   * divided by calls per second (the recorder keeps percentiles, not the mean).
   */
  private static void packHostTime(PackScenario.Result r, int inFlight) {
    for (String node : List.of("node-1", "node-2")) {
      Double count = r.side().get(node + " conclave_packs_tool_call_duration_seconds_count");
      Double sum = r.side().get(node + " conclave_packs_tool_call_duration_seconds_sum");
      if (count != null && sum != null && count > 0) {
        System.out.printf(Locale.ROOT, "%s: pack host on %s timed %.0f calls in the measured window, mean %.2f ms from its registry lookup to the pack's result "
          + "(end to end the agents saw a mean of %.2f ms: %d calls in flight / %.1f calls/s)%n", r.name(), node, count, sum / count * 1000,
          inFlight / r.measured().requestsPerSecond() * 1000, inFlight, r.measured().requestsPerSecond());
      }
    }
  }
}
