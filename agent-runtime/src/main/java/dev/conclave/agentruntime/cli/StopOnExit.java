package dev.conclave.agentruntime.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stops the agent when the JVM is asked to stop (SIGTERM, SIGINT or {@code System.exit}), through a
 * JVM shutdown hook, and ends the process by one exit-code rule: the code the run returned (0 after
 * a requested stop: the request in flight finished or was cancelled), or 1 when the run did not end
 * within {@link #RUN_LIMIT_SECONDS} seconds.
 *
 * <p>A JVM ended by a signal would exit with 128 + the signal number (143 for SIGTERM). Inside a
 * hook {@code System.exit} blocks forever, so the hook ends the process with {@code Runtime.halt}
 * once the run has returned and closed its Vert.x instance.
 */
final class StopOnExit {

  /** The run's own stop waits up to 10 s for the request in flight and 10 s for Vert.x to close. */
  static final long RUN_LIMIT_SECONDS = 25;

  private final CompletableFuture<String> stop;
  private final CompletableFuture<Integer> code = new CompletableFuture<>();

  private StopOnExit(CompletableFuture<String> stop) {
    this.stop = stop;
  }

  /** Installs the hook; it completes {@code stop} when the JVM begins to exit. */
  static StopOnExit install(CompletableFuture<String> stop) {
    StopOnExit exit = new StopOnExit(stop);
    Runtime.getRuntime().addShutdownHook(new Thread(exit::onJvmExit, "agent-shutdown"));
    return exit;
  }

  /** The run returned {@code exitCode}; a hook that is waiting ends the process with it. */
  void finished(int exitCode) {
    code.complete(exitCode);
  }

  private void onJvmExit() {
    stop.complete("shutdown signal");
    int exitCode;
    try {
      exitCode = code.get(RUN_LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      System.err.println("conclave-agent: the stop did not end within " + RUN_LIMIT_SECONDS + " s");
      exitCode = 1;
    } catch (Exception e) {
      exitCode = 1;
    }
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(exitCode);
  }
}
