package dev.conclave.platform.testing;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The one place tests wait for a future, on Vert.x 5's own {@link Future#await(long, TimeUnit)}. Every
 * module that has platform's test-jar waits from here instead of writing its own helper.
 *
 * <p>Only for a test's own thread, never an event loop. Every wait is bounded: {@link #LIMIT} is far
 * beyond what a loaded 2-core machine needs, so it only ends a test that would otherwise hang; no test
 * depends on how fast anything is. A failed future throws its own cause (as {@code await} does), not an
 * {@code ExecutionException}: assert on the exception itself.
 */
public final class Await {

  /** The bound of every wait that does not name its own. */
  public static final Duration LIMIT = Duration.ofSeconds(30);

  private Await() {
  }

  /** The future's value, or its failure thrown as it is; fails the test after {@link #LIMIT}. */
  public static <T> T await(Future<T> future) {
    return await(future, LIMIT);
  }

  /** The future's value, or its failure thrown as it is; fails the test after {@code within}. */
  public static <T> T await(Future<T> future, Duration within) {
    try {
      keepPoolParallelism(future, within);
      return future.await(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (future.isComplete()) {
        throw Await.<RuntimeException>asThrown(e); // the future's own failure was a timeout: as it is
      }
      throw new AssertionError("future did not complete within " + within.toMillis() + " ms");
    }
  }

  /**
   * A named step of a program (a benchmark, a load generator) that must end within {@code within}: its
   * value, or an {@link IllegalStateException} that names the step when it failed or did not end in time
   * (programs catch and report it; a test fails on it like on any other exception).
   */
  public static <T> T await(Future<T> future, Duration within, String what) {
    AsyncResult<T> outcome;
    try {
      keepPoolParallelism(future, within);
      outcome = future.<AsyncResult<T>>transform(Future::succeededFuture).await(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(what + ": not done within " + within.toSeconds() + " s", e);
    }
    if (outcome.failed()) {
      throw new IllegalStateException(what + ": " + outcome.cause().getMessage(), outcome.cause());
    }
    return outcome.result();
  }

  /** The future's failure; fails the test if it succeeded or did not complete within {@link #LIMIT}. */
  public static Throwable failure(Future<?> future) {
    return failure(future, LIMIT);
  }

  /** The future's failure; fails the test if it succeeded or did not complete within {@code within}. */
  public static Throwable failure(Future<?> future, Duration within) {
    AsyncResult<?> outcome = outcome(future, within);
    if (outcome.succeeded()) {
      throw new AssertionError("expected a failure, got " + outcome.result());
    }
    return outcome.cause();
  }

  private static <T> AsyncResult<T> outcome(Future<T> future, Duration within) {
    return await(future.<AsyncResult<T>>transform(Future::succeededFuture), within);
  }

  /**
   * On a ForkJoinPool thread (a {@code CompletableFuture.supplyAsync} that starts one of two cluster
   * members, say), waits as a managed blocker, as {@code CompletableFuture.get} did: the pool adds a
   * thread meanwhile, so the task this one waits for can run. The common pool has one thread on a
   * 2-core machine; a plain await there held the second member's start until the first gave up.
   */
  private static void keepPoolParallelism(Future<?> future, Duration within) {
    if (!(Thread.currentThread() instanceof ForkJoinWorkerThread) || future.isComplete()) {
      return;
    }
    try {
      ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
        @Override
        public boolean block() {
          try {
            future.<Object>transform(Future::succeededFuture).await(within.toMillis(), TimeUnit.MILLISECONDS);
          } catch (TimeoutException e) {
            // the caller's await reports it
          }
          return true;
        }

        @Override
        public boolean isReleasable() {
          return future.isComplete();
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E asThrown(Throwable failure) throws E {
    throw (E) failure;
  }

  /** Polls {@code condition} every 10 ms until it holds; fails the test after {@code within}. */
  public static void until(String what, BooleanSupplier condition, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + within.toMillis() + " ms waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Polls {@code condition} until it holds; fails the test after {@link #LIMIT}. */
  public static void until(String what, BooleanSupplier condition) {
    until(what, condition, LIMIT);
  }
}
