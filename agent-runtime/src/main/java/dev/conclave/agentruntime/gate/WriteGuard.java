package dev.conclave.agentruntime.gate;

import io.vertx.core.Future;

import java.time.Duration;
import java.util.Optional;

/**
 * What must hold before a tool call the policy (or a person) allowed may run, beyond the policy:
 * the swarm's file leases, which a call that writes a file takes for the agent's task first. The
 * gate asks after its own decision; a refusal ends the call as {@code DENIED} with the reason, which
 * the model reads.
 */
public interface WriteGuard {

  /** Nothing to hold. */
  WriteGuard NONE = (toolId, tool, inputJson) -> Future.succeededFuture(Optional.empty());

  /** Completes empty when the call may run now, or with why not; never fails. May wait (up to {@link #maxWait}). */
  Future<Optional<String>> beforeRun(String toolId, String tool, String inputJson);

  /** The longest {@link #beforeRun} may wait; a CLI waits this much longer for the gate's answer. */
  default Duration maxWait() {
    return Duration.ZERO;
  }
}
