package dev.conclave.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Stops a long-running command when the JVM is asked to stop (SIGTERM, SIGINT or {@code System.exit})
 * through a JVM shutdown hook, and ends the process by one exit-code rule:
 *
 * <ul>
 *   <li>the stop returned: exit 0 (a SIGTERM after a clean drain is a clean exit, not 143);</li>
 *   <li>the stop threw: exit 1;</li>
 *   <li>the command never finished starting ({@link #startFailed}): the hook leaves the code to
 *       whoever ends the JVM (the command's own {@code System.exit}).</li>
 * </ul>
 *
 * <p>A JVM ended by a signal would exit with 128 + the signal number. Inside a hook
 * {@code System.exit} blocks forever, so the hook ends the process with {@code Runtime.halt} once
 * the stop is done; that skips nothing of ours, since the stop has closed everything by then.
 */
final class Shutdown {

  private final CompletableFuture<Runnable> stop = new CompletableFuture<>();

  /** Installs the hook; a signal that comes before {@link #awaitThenExit} waits for the start to end. */
  Shutdown(String name) {
    Runtime.getRuntime().addShutdownHook(new Thread(this::onJvmExit, name + "-shutdown"));
  }

  /** The start failed: the hook does nothing, the caller's {@code System.exit} code stands. */
  void startFailed(Throwable cause) {
    stop.completeExceptionally(cause);
  }

  /** Arms the hook with {@code stop} and blocks the calling thread; the hook ends the process. */
  void awaitThenExit(Runnable stopAction) {
    stop.complete(stopAction);
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void onJvmExit() {
    Runnable action;
    try {
      action = stop.join();
    } catch (RuntimeException startFailed) {
      return;
    }
    int code = exitCode(action);
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(code);
  }

  /** The exit-code rule: 0 when {@code action} returns, 1 when it throws. */
  static int exitCode(Runnable action) {
    try {
      action.run();
      return 0;
    } catch (RuntimeException | Error e) {
      System.err.println("stop failed: " + e);
      return 1;
    }
  }
}
