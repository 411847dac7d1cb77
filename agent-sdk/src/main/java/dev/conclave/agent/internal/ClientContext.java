package dev.conclave.agent.internal;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.concurrent.CompletableFuture;

/**
 * The one Vert.x event-loop context a client's state lives on, made and used through Vert.x's
 * public API only.
 *
 * <p>Each client gets a context of its own, so two clients in one program are not serialised on one
 * another. Vert.x 5's public API has no "new context" call: {@link Vertx#getOrCreateContext()}
 * returns the caller's context when there is one, and creates a new event-loop context only for a
 * thread that has none. {@link #create} therefore asks from a short-lived thread of its own, which
 * never has a context, whichever thread builds the client (a verticle's event loop included). A
 * deployed verticle would give the same, but only asynchronously, and a client is built synchronously.
 *
 * <p>{@link #inThread()} is true on the context's event-loop thread, as Vert.x's own check is: the
 * thread is recorded by the first task the context runs. Until then it is false and work is
 * dispatched with {@link Context#runOnContext}, which is always correct.
 */
final class ClientContext {

  private final Context context;
  private volatile Thread thread;

  private ClientContext(Context context) {
    this.context = context;
    context.runOnContext(v -> thread = Thread.currentThread());
  }

  /** A new event-loop context of {@code vertx}. */
  static ClientContext create(Vertx vertx) {
    CompletableFuture<Context> made = new CompletableFuture<>();
    Thread maker = new Thread(() -> {
      try {
        made.complete(vertx.getOrCreateContext());
      } catch (Throwable t) {
        made.completeExceptionally(t);
      }
    }, "conclave-agent-context");
    maker.setDaemon(true);
    maker.start();
    return new ClientContext(made.join());
  }

  Vertx owner() {
    return context.owner();
  }

  /** True on the context's event-loop thread. */
  boolean inThread() {
    return Thread.currentThread() == thread;
  }

  void runOnContext(Runnable action) {
    context.runOnContext(v -> action.run());
  }

  /** Runs {@code action} now when on the context, else on the context. */
  void run(Runnable action) {
    if (inThread()) {
      action.run();
    } else {
      runOnContext(action);
    }
  }

  /**
   * A promise whose future's callbacks run on this context, whichever thread completes it: its
   * future completes on the context (at once when it is completed there).
   */
  <T> Promise<T> promise() {
    Promise<T> state = Promise.promise();
    Promise<T> onContext = Promise.promise();
    state.future().onComplete(ar -> run(() -> onContext.handle(ar)));
    return new Promise<>() {
      @Override
      public boolean tryComplete(T value) {
        return state.tryComplete(value);
      }

      @Override
      public boolean tryFail(Throwable cause) {
        return state.tryFail(cause);
      }

      @Override
      public Future<T> future() {
        return onContext.future();
      }
    };
  }
}
