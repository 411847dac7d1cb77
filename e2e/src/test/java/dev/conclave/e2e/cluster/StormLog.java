package dev.conclave.e2e.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the storm's clients did: every idempotency key they sent, those a node accepted, each
 * request's round trip (from its first SendMessage to its terminal event on the client's stream)
 * with when it started, and the requests given up. Thread-safe; the clients run on several event loops.
 */
final class StormLog {

  /** A round trip that started at {@code start} ({@link System#nanoTime}) and took {@code nanos}. */
  record RoundTrip(long start, long nanos, boolean ok) {
  }

  /** Percentiles in milliseconds of the round trips that started in a window. */
  record Window(int requests, int errors, double p50, double p99, double max) {
    @Override
    public String toString() {
      return String.format("%d requests (%d ended with an error): p50 %.1f ms, p99 %.1f ms, max %.1f ms", requests, errors, p50, p99, max);
    }
  }

  private final Set<String> sent = ConcurrentHashMap.newKeySet();
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  private final List<RoundTrip> roundTrips = new ArrayList<>();
  private final List<String> gaveUp = new ArrayList<>();
  private final AtomicInteger retries = new AtomicInteger();
  private final java.util.Map<String, AtomicInteger> retryReasons = new ConcurrentHashMap<>();

  void sent(String idempotencyKey) {
    sent.add(idempotencyKey);
  }

  void accepted(String idempotencyKey) {
    accepted.add(idempotencyKey);
  }

  /** A request is sent again on the next node, for {@code why} (its kind: the text before the first colon). */
  void retried(String why) {
    retries.incrementAndGet();
    int colon = why.indexOf(':');
    retryReasons.computeIfAbsent(colon < 0 ? why : why.substring(0, colon), k -> new AtomicInteger()).incrementAndGet();
  }

  /** Why requests were sent again, with how often. */
  java.util.Map<String, Integer> retryReasons() {
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    retryReasons.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  synchronized void ended(long start, long end, boolean ok) {
    roundTrips.add(new RoundTrip(start, end - start, ok));
  }

  synchronized void gaveUp(String idempotencyKey, String why) {
    gaveUp.add(idempotencyKey + ": " + why);
  }

  Set<String> sent() {
    return Set.copyOf(sent);
  }

  Set<String> accepted() {
    return Set.copyOf(accepted);
  }

  int retries() {
    return retries.get();
  }

  synchronized List<String> gaveUp() {
    return List.copyOf(gaveUp);
  }

  synchronized int completed() {
    return roundTrips.size();
  }

  /** The round trips that started in {@code [from, to)}. */
  synchronized Window window(long from, long to) {
    return window(r -> r.start() >= from && r.start() < to);
  }

  /** The round trips that started and ended in {@code [from, to)}: before a fault, those it did not reach. */
  synchronized Window within(long from, long to) {
    return window(r -> r.start() >= from && r.start() + r.nanos() < to);
  }

  private Window window(java.util.function.Predicate<RoundTrip> in) {
    long[] nanos = roundTrips.stream().filter(in).mapToLong(RoundTrip::nanos).sorted().toArray();
    int errors = (int) roundTrips.stream().filter(in).filter(r -> !r.ok()).count();
    return new Window(nanos.length, errors, percentile(nanos, 0.50), percentile(nanos, 0.99),
      nanos.length == 0 ? Double.NaN : nanos[nanos.length - 1] / 1e6);
  }

  /** Nearest-rank percentile, in milliseconds. */
  static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e6;
  }
}
