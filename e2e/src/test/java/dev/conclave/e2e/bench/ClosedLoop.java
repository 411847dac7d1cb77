package dev.conclave.e2e.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;

/**
 * A client with exactly one request in flight: it sends, waits for the request to finish, and
 * sends the next, until the recorder drains. Everything runs on the verticle's own event loop.
 * A request that neither finishes nor fails within {@link #REQUEST_TIMEOUT_MS} counts as failed,
 * so a lost answer shows up as an error instead of stalling the run.
 */
abstract class ClosedLoop extends VerticleBase {

  static final long REQUEST_TIMEOUT_MS = 30_000;

  protected Recorder recorder;
  private Promise<Void> stopped = Promise.promise();
  private long sequence;
  private long outstanding = -1;
  private long sentAt;
  private long timer = -1;

  ClosedLoop(Recorder recorder) {
    this.recorder = recorder;
  }

  /** Starts sending; completes once the loop has stopped after the recorder began draining. */
  final Future<Void> run() {
    context.runOnContext(v -> next());
    return stopped.future();
  }

  /**
   * Runs again, into {@code next}, after the previous run has stopped: the same connection and
   * subscriptions measure one phase after another (RetentionBench).
   */
  final Future<Void> run(Recorder next) {
    Promise<Void> promise = Promise.promise();
    context.runOnContext(v -> {
      recorder = next;
      stopped = promise;
      next();
    });
    return promise.future();
  }

  private void next() {
    if (recorder.draining()) {
      stopped.tryComplete();
      return;
    }
    long seq = ++sequence;
    outstanding = seq;
    sentAt = System.nanoTime();
    timer = vertx.setTimer(REQUEST_TIMEOUT_MS, t -> finish(seq, false));
    send(seq);
  }

  /** Sends request {@code seq}; the subclass calls {@link #finish} when it ends. */
  protected abstract void send(long seq);

  /** Request {@code seq} ended; a second report of the same request is ignored. */
  protected final void finish(long seq, boolean ok) {
    if (seq != outstanding) {
      return;
    }
    long nanos = System.nanoTime() - sentAt;
    outstanding = -1;
    vertx.cancelTimer(timer);
    if (ok) {
      recorder.completed(nanos);
    } else {
      recorder.failed();
    }
    next();
  }

  /** The request in flight, or -1. */
  protected final long outstanding() {
    return outstanding;
  }
}
