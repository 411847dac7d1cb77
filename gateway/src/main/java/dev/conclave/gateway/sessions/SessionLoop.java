package dev.conclave.gateway.sessions;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** The event loop that owns one session's state: whatever comes from elsewhere hops onto it here. */
final class SessionLoop {

  private final Context context;

  SessionLoop(Context context) {
    this.context = context;
  }

  Context context() {
    return context;
  }

  /** Runs {@code action} on the session's event loop after the task running now (and the reads it is handling). */
  void later(Runnable action) {
    context.runOnContext(v -> action.run());
  }

  /** Runs {@code action} on the session's event loop: at once when already there. */
  void run(Runnable action) {
    if (Context.isOnEventLoopThread() && Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
