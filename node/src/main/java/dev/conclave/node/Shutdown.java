package dev.conclave.node;

import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;

/**
 * Waits for SIGTERM or SIGINT, runs a graceful stop, and exits 0. Handling the signal ourselves
 * (rather than in a shutdown hook) is what lets a clean stop end with status 0, not 143.
 */
final class Shutdown {

  private final CountDownLatch signalled = new CountDownLatch(1);

  Shutdown() {
    Signal.handle(new Signal("TERM"), s -> signalled.countDown());
    Signal.handle(new Signal("INT"), s -> signalled.countDown());
  }

  /** Blocks until a signal arrives, then runs {@code stop} and exits 0. */
  void awaitThenExit(Runnable stop) {
    try {
      signalled.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stop.run();
    System.exit(0);
  }
}
