package dev.conclave.e2e.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The benchmark's parameters. Each is read from an argument {@code name=value}, else from the
 * system property {@code bench.name}, else its default; with the defaults a run takes about a
 * minute on 2 cores (plus the build).
 *
 * @param agents      connected echo agents (at least {@code clients}; each client owns every agent
 *                    whose index modulo {@code clients} is its own)
 * @param clients     clients, each with one request in flight at a time (closed loop)
 * @param chunks      text chunks an agent answers each message with, before done
 * @param warmup      sending without recording, before the gateway measurement
 * @param measure     how long the gateway round trip is measured
 * @param bareWarmup  warm-up of each bare gRPC echo
 * @param bareMeasure how long each bare gRPC echo is measured
 */
record BenchSettings(int agents, int clients, int chunks, Duration warmup, Duration measure, Duration bareWarmup, Duration bareMeasure) {

  private static final Map<String, String> DEFAULTS = Map.of(
    "agents", "40",
    "clients", "20",
    "chunks", "5",
    "warmup", "30",
    "seconds", "20",
    "bareWarmup", "3",
    "bareSeconds", "10");

  static BenchSettings from(String[] args, Properties properties) {
    Map<String, String> values = new HashMap<>(DEFAULTS);
    DEFAULTS.keySet().forEach(k -> {
      String p = properties.getProperty("bench." + k);
      if (p != null) {
        values.put(k, p.trim());
      }
    });
    for (String arg : args) {
      int eq = arg.indexOf('=');
      String key = eq > 0 ? arg.substring(0, eq) : arg;
      if (eq <= 0 || !DEFAULTS.containsKey(key)) {
        throw new IllegalArgumentException("unknown argument '" + arg + "'; use name=value with name one of " + Set.copyOf(DEFAULTS.keySet()));
      }
      values.put(key, arg.substring(eq + 1).trim());
    }
    BenchSettings s = new BenchSettings(positive(values, "agents"), positive(values, "clients"), positive(values, "chunks"),
      Duration.ofSeconds(zeroOrMore(values, "warmup")), Duration.ofSeconds(positive(values, "seconds")),
      Duration.ofSeconds(zeroOrMore(values, "bareWarmup")), Duration.ofSeconds(positive(values, "bareSeconds")));
    if (s.agents < s.clients) {
      throw new IllegalArgumentException("agents (" + s.agents + ") must be at least clients (" + s.clients
        + "): each client owns its own agents' conversations");
    }
    return s;
  }

  private static int positive(Map<String, String> values, String key) {
    int n = integer(values, key);
    if (n < 1) {
      throw new IllegalArgumentException(key + " must be at least 1, got " + n);
    }
    return n;
  }

  private static int zeroOrMore(Map<String, String> values, String key) {
    int n = integer(values, key);
    if (n < 0) {
      throw new IllegalArgumentException(key + " must not be negative, got " + n);
    }
    return n;
  }

  private static int integer(Map<String, String> values, String key) {
    try {
      return Integer.parseInt(values.get(key));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + values.get(key) + "'");
    }
  }

  @Override
  public String toString() {
    return "agents=" + agents + " clients=" + clients + " chunks=" + chunks + " warmup=" + warmup.toSeconds() + "s seconds="
      + measure.toSeconds() + "s bareWarmup=" + bareWarmup.toSeconds() + "s bareSeconds=" + bareMeasure.toSeconds() + "s";
  }
}
