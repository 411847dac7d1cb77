package dev.conclave.e2e.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * {@link PackBench}'s parameters, each from the system property {@code bench.name}, else its
 * default. With the defaults a run takes about 2 minutes on 2 cores (plus the build).
 *
 * @param agents    agents calling the tool, each on its own connection and AgentStream
 * @param inFlight  calls each agent keeps in flight (closed loop; the gateway allows 64 per agent)
 * @param jitWarmup load on both nodes at once (at least 16 agents, half on each) before any scenario, so the
 *                  node JVMs have compiled the call path; 0 skips it. Freshly started nodes spend much
 *                  of their CPU in the JIT compiler for tens of seconds, and the bench reports that share
 * @param warmup    warm-up window of each scenario (reported, not part of the measured numbers)
 * @param measure   measured window of each scenario
 * @param payload   characters of text in each call's input (the pack echoes the input back)
 * @param scenarios which scenarios run: {@code same} and {@code cross} in the order listed, then {@code bare}
 */
record PackBenchSettings(int agents, int inFlight, Duration jitWarmup, Duration warmup, Duration measure, int payload, List<String> scenarios) {

  static final Set<String> SCENARIOS = Set.of("same", "cross", "bare");
  /** PackToolCalls.MAX_IN_FLIGHT in the gateway: more are refused at once. */
  static final int GATEWAY_MAX_IN_FLIGHT = 64;

  private static final Map<String, String> DEFAULTS = Map.of(
    "agents", "16",
    "inflight", "1",
    "jitWarmup", "30",
    "warmup", "5",
    "seconds", "15",
    "payload", "64",
    "scenarios", "same,cross,bare");

  static PackBenchSettings from(Properties properties) {
    Map<String, String> values = new HashMap<>(DEFAULTS);
    DEFAULTS.keySet().forEach(k -> {
      String p = properties.getProperty("bench." + k);
      if (p != null && !p.isBlank()) {
        values.put(k, p.trim());
      }
    });
    List<String> scenarios = List.copyOf(new LinkedHashSet<>(Arrays.stream(values.get("scenarios").split(","))
      .map(String::trim).filter(s -> !s.isEmpty()).toList()));
    if (scenarios.isEmpty() || !SCENARIOS.containsAll(scenarios)) {
      throw new IllegalArgumentException("bench.scenarios must list some of " + SCENARIOS + ", got '" + values.get("scenarios") + "'");
    }
    int inFlight = atLeast(values, "inflight", 1);
    if (inFlight > GATEWAY_MAX_IN_FLIGHT) {
      throw new IllegalArgumentException("bench.inflight must be at most " + GATEWAY_MAX_IN_FLIGHT + " (the gateway's limit per agent), got " + inFlight);
    }
    return new PackBenchSettings(atLeast(values, "agents", 1), inFlight, Duration.ofSeconds(atLeast(values, "jitWarmup", 0)),
      Duration.ofSeconds(atLeast(values, "warmup", 0)),
      Duration.ofSeconds(atLeast(values, "seconds", 1)), atLeast(values, "payload", 0), scenarios);
  }

  boolean runs(String scenario) {
    return scenarios.contains(scenario);
  }

  private static int atLeast(Map<String, String> values, String key, int min) {
    int n;
    try {
      n = Integer.parseInt(values.get(key));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bench." + key + " must be an integer, got '" + values.get(key) + "'");
    }
    if (n < min) {
      throw new IllegalArgumentException("bench." + key + " must be at least " + min + ", got " + n);
    }
    return n;
  }

  @Override
  public String toString() {
    return "agents=" + agents + " inflight=" + inFlight + " jitWarmup=" + jitWarmup.toSeconds() + "s warmup=" + warmup.toSeconds() + "s seconds=" + measure.toSeconds()
      + "s payload=" + payload + " scenarios=" + String.join(",", scenarios);
  }
}
