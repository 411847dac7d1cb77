package dev.conclave.agentruntime.backend.cli;

import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agentruntime.process.ChildProcess;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Turns one CLI run's JSON lines into backend callbacks and, at the end, a {@link BackendResponse}.
 * One mapper per run; called from the run's reader thread, one line at a time.
 */
public interface StreamMapper {

  /**
   * The child started. A mapper that talks to its CLI over standard input (a conversational
   * {@link CliRun}) keeps it to write its requests.
   */
  default void started(ChildProcess child) {
  }

  /** One JSON line of the CLI's output. The reader waits for the future before the next line. */
  Future<Void> onEvent(JsonObject event);

  /** A line that is not JSON (some CLIs print warnings on stdout). */
  default Future<Void> onText(String line) {
    return Future.succeededFuture();
  }

  /**
   * The run is over.
   *
   * @param exitCode the CLI's exit code
   * @param stderr the end of its standard error
   */
  BackendResponse finish(int exitCode, String stderr);

  /** A reason to stop the run early (a tool the policy denies ran), or null to let it run. */
  default String stopReason() {
    return null;
  }
}
