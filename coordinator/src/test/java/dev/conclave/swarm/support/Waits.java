package dev.conclave.swarm.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling for something that happens in the background (jobs, the event relay, the file transport). */
public final class Waits {

  private Waits() {
  }

  public static void until(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
