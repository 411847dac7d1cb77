package dev.conclave.agent.internal;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.function.Supplier;

/** Runs an action on the client's context, whichever thread asks. */
final class OnContext {

  private OnContext() {
  }

  static <T> Future<T> call(ClientContext context, Supplier<Future<T>> action) {
    if (context.inThread()) {
      return invoke(action);
    }
    Promise<T> promise = context.promise();
    context.runOnContext(() -> invoke(action).onComplete(promise));
    return promise.future();
  }

  static void run(ClientContext context, Runnable action) {
    context.run(action);
  }

  /**
   * Calls user code on the context and returns a future whose callbacks run on the context too,
   * whichever thread user code completes it on.
   */
  static <T> Future<T> callback(ClientContext context, Supplier<Future<T>> action) {
    Promise<T> promise = context.promise();
    invoke(action).onComplete(promise);
    return promise.future();
  }

  /** {@code future}, with its callbacks moved onto the context. */
  static <T> Future<T> on(ClientContext context, Future<T> future) {
    Promise<T> promise = context.promise();
    future.onComplete(promise);
    return promise.future();
  }

  /** Calls {@code action}, turning a throw or a null future into a failed future. */
  static <T> Future<T> invoke(Supplier<Future<T>> action) {
    try {
      Future<T> f = action.get();
      return f != null ? f : Future.failedFuture(new IllegalStateException("a future-returning callback returned null"));
    } catch (Throwable t) {
      return Future.failedFuture(t);
    }
  }
}
