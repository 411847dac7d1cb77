package dev.conclave.e2e.bench;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one scenario measured. Loops report every completed request and every message they
 * receive; only those that arrive while the recorder is measuring count. Latencies are kept
 * exactly (a run holds at most a few hundred thousand), so percentiles are not approximated.
 */
final class Recorder {

  enum Phase { WARMUP, MEASURING, DRAINING }

  /** One scenario's numbers; latencies in milliseconds. */
  record Result(String scenario, long requests, double seconds, double requestsPerSecond, double eventsPerSecond,
                double p50, double p90, double p99, double max, long errors) {
  }

  private volatile Phase phase = Phase.WARMUP;
  private final LongAdder events = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private long[] latencies = new long[1 << 14];
  private int count;
  private long measureStart;
  private long measureEnd;

  Phase phase() {
    return phase;
  }

  boolean draining() {
    return phase == Phase.DRAINING;
  }

  void startMeasuring() {
    measureStart = System.nanoTime();
    phase = Phase.MEASURING;
  }

  void stopMeasuring() {
    phase = Phase.DRAINING;
    measureEnd = System.nanoTime();
  }

  /** Messages a client received (stream events, or responses). */
  void events(int n) {
    if (phase == Phase.MEASURING) {
      events.add(n);
    }
  }

  /** A request finished successfully after {@code nanos}. */
  void completed(long nanos) {
    if (phase != Phase.MEASURING) {
      return;
    }
    synchronized (this) {
      if (count == latencies.length) {
        latencies = Arrays.copyOf(latencies, count * 2);
      }
      latencies[count++] = nanos;
    }
  }

  /** Requests completed while measuring, so far. */
  synchronized long measuredSoFar() {
    return count;
  }

  /** A request failed (during any phase: a benchmark that hides failures is wrong). */
  void failed() {
    errors.increment();
  }

  synchronized Result result(String scenario) {
    long[] sorted = Arrays.copyOf(latencies, count);
    Arrays.sort(sorted);
    double seconds = (measureEnd - measureStart) / 1e9;
    return new Result(scenario, count, seconds, count / seconds, events.sum() / seconds,
      percentile(sorted, 0.50), percentile(sorted, 0.90), percentile(sorted, 0.99),
      sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6, errors.sum());
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
