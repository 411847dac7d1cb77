package dev.conclave.agentruntime.testing;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits of the test thread for something that must happen. The limit only ends a test that would
 * otherwise hang: it is far beyond what the slowest machine needs (these tests run on a loaded
 * 2-core machine), so no test depends on how fast anything is. A test that proves something did
 * NOT happen waits for a later event instead of a pause.
 */
public final class Eventually {

  public static final Duration LIMIT = Duration.ofSeconds(60);

  private Eventually() {
  }

  /** Polls {@code condition} until it holds; fails the test after {@link #LIMIT}. */
  public static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + LIMIT.toSeconds() + " s waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** The future's value; fails the test when it failed or did not complete within {@link #LIMIT}. */
  public static <T> T result(Future<T> future) {
    AsyncResult<T> outcome;
    try {
      // Vert.x 5's await on the outcome, so that the future's own failure is not taken for the timeout
      outcome = future.<AsyncResult<T>>transform(Future::succeededFuture).await(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("future did not complete within " + LIMIT.toSeconds() + " s");
    }
    if (outcome.failed()) {
      throw new AssertionError("future failed: " + outcome.cause(), outcome.cause());
    }
    return outcome.result();
  }
}
