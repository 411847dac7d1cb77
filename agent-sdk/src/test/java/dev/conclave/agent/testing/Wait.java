package dev.conclave.agent.testing;

import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
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
    try {
      return future.toCompletionStage().toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("future failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("future did not complete within " + within.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The future's failure; fails the test if it succeeded or did not complete within {@link #DEFAULT}. */
  public static Throwable failure(Future<?> future) {
    return failure(future, DEFAULT);
  }

  public static Throwable failure(Future<?> future, Duration within) {
    try {
      Object v = future.toCompletionStage().toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got " + v);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("future did not complete within " + within.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
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
