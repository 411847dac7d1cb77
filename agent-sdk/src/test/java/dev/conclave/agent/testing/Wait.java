package dev.conclave.agent.testing;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** Bounded blocking waits for the test thread (never an event loop). */
public final class Wait {

  /**
   * How long a wait for something that must happen lasts before the test fails: far beyond what a
   * loaded 2-core machine needs, so that no test depends on how fast anything is. It only ends a test
   * that would otherwise hang; a test that shows something did not happen waits for a later event.
   */
  public static final Duration DEFAULT = Duration.ofSeconds(30);

  private Wait() {
  }

  /** The future's value; fails the test if it failed or did not complete within {@link #DEFAULT}. */
  public static <T> T result(Future<T> future) {
    return result(future, DEFAULT);
  }

  public static <T> T result(Future<T> future, Duration within) {
    AsyncResult<T> outcome = outcome(future, within);
    if (outcome.failed()) {
      throw new AssertionError("future failed: " + outcome.cause(), outcome.cause());
    }
    return outcome.result();
  }

  /** The future's failure; fails the test if it succeeded or did not complete within {@link #DEFAULT}. */
  public static Throwable failure(Future<?> future) {
    return failure(future, DEFAULT);
  }

  public static Throwable failure(Future<?> future, Duration within) {
    AsyncResult<?> outcome = outcome(future, within);
    if (outcome.succeeded()) {
      throw new AssertionError("expected a failure, got " + outcome.result());
    }
    return outcome.cause();
  }

  /**
   * Vert.x 5's {@link Future#await(long, TimeUnit)} on the outcome rather than the value, so that a
   * failure comes back as it is and only a timeout means the wait itself ran out.
   */
  private static <T> AsyncResult<T> outcome(Future<T> future, Duration within) {
    try {
      return future.<AsyncResult<T>>transform(Future::succeededFuture).await(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("future did not complete within " + within.toMillis() + " ms");
    }
  }

  /** Polls {@code condition} until true; fails the test after {@code within}. */
  public static void until(String what, BooleanSupplier condition, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      sleep(10);
    }
  }

  public static void until(String what, BooleanSupplier condition) {
    until(what, condition, DEFAULT);
  }

  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
