package dev.conclave.e2e.bench;

/**
 * The windows of one scenario: a warm-up window, then a measured window, each with its own
 * {@link Recorder}; then the loops stop sending and let their calls in flight end. A call counts in
 * the window in which it ends. Errors count in the window that is current when they happen, and
 * errors while the loops drain count in the measured window, so none is lost.
 */
final class CallWindows {

  private final Recorder warmup = new Recorder();
  private final Recorder measured = new Recorder();
  private volatile Recorder current = warmup;
  private volatile boolean stopping;

  CallWindows() {
    warmup.startMeasuring();
  }

  /** Where calls ending now are recorded. */
  Recorder current() {
    return current;
  }

  /** True once loops must send no more calls. */
  boolean stopping() {
    return stopping;
  }

  void startMeasuring() {
    measured.startMeasuring();
    current = measured;
    warmup.stopMeasuring();
  }

  void stop() {
    measured.stopMeasuring();
    stopping = true;
  }

  Recorder warmup() {
    return warmup;
  }

  Recorder measured() {
    return measured;
  }
}
