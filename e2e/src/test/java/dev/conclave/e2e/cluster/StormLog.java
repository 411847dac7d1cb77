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

  void sent(String idempotencyKey) {
    sent.add(idempotencyKey);
  }

  void accepted(String idempotencyKey) {
    accepted.add(idempotencyKey);
  }

  void retried() {
    retries.incrementAndGet();
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
    long[] nanos = roundTrips.stream().filter(r -> r.start() >= from && r.start() < to).mapToLong(RoundTrip::nanos).sorted().toArray();
    int errors = (int) roundTrips.stream().filter(r -> r.start() >= from && r.start() < to && !r.ok()).count();
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
