package dev.conclave.agentruntime.swarm;

import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agent.backend.TransientErrors;
import io.vertx.core.json.JsonObject;

import java.util.Optional;

/**
 * What the coordinator is told when a task's run is over, decided once from how it ended. In order:
 *
 * <ol>
 *   <li>the program stopped the run itself: past {@code maxTaskMinutes} FAIL {@code task_timeout};
 *       released (a RELEASE_TASK command, the program stopping) FAIL {@code agent_crash}; the task
 *       taken away (PROGRESS said stop, the agent marked offline) nothing; cancelled from outside
 *       (a person cancelled the request, the gateway stream dropped) FAIL {@code task_error} —
 *       all recoverable;</li>
 *   <li>a tool was refused: FAIL {@code resource_error}, recoverable when a lease was not free in
 *       time or nobody answered an approval, not when the policy or a person denied it;</li>
 *   <li>the backend failed: FAIL {@code task_error}, recoverable when the failure is transient by
 *       the agent SDK's rule (what it retried once already);</li>
 *   <li>the task never became a conversation: FAIL {@code resource_error}, recoverable;</li>
 *   <li>otherwise the backend answered: COMPLETE.</li>
 * </ol>
 */
final class TaskEnding {

  /** Why the program stopped a run. */
  enum Stop { TIMEOUT, RELEASE, SHUTDOWN, TAKEN_AWAY, OUTSIDE }

  /** Why a tool did not run. */
  enum Refusal { LEASE, APPROVAL_TIMEOUT, DENIED }

  /** A FAIL's {@code failure}, or COMPLETE when empty. */
  record Decision(boolean report, Optional<JsonObject> failure) {

    static Decision complete() {
      return new Decision(true, Optional.empty());
    }

    static Decision nothing() {
      return new Decision(false, Optional.empty());
    }

    static Decision fail(String type, boolean recoverable, String message) {
      return new Decision(true, Optional.of(new JsonObject().put("type", type).put("message", cut(message, 2_000))
        .put("recoverable", recoverable)));
    }

    boolean completes() {
      return report && failure.isEmpty();
    }
  }

  private TaskEnding() {
  }

  /**
   * @param stop why the program stopped the run (null: it did not), with {@code stopReason}
   * @param refusal the first tool refusal (null: none), with {@code refusalReason}
   * @param error the backend's error message (null: none)
   * @param openFailure why the task did not become a conversation (null: it did)
   * @param maxTaskMinutes the agent's limit, for the timeout's message
   */
  static Decision decide(Stop stop, String stopReason, Refusal refusal, String refusalReason, String error, String openFailure,
                         int maxTaskMinutes) {
    if (stop != null) {
      return switch (stop) {
        case TIMEOUT -> Decision.fail("task_timeout", true, "the task was not finished " + maxTaskMinutes
          + " minutes after its claim (maxTaskMinutes)");
        case RELEASE -> Decision.fail("agent_crash", true, "released: " + stopReason);
        case SHUTDOWN -> Decision.fail("agent_crash", true, "released: the agent is stopping (" + stopReason + ")");
        case TAKEN_AWAY -> Decision.nothing();
        case OUTSIDE -> Decision.fail("task_error", true, "the task's request was cancelled: " + stopReason);
      };
    }
    if (refusal != null) {
      return Decision.fail("resource_error", refusal != Refusal.DENIED, "a tool was refused: " + refusalReason);
    }
    if (error != null) {
      return Decision.fail("task_error", transientError(error), "the backend failed: " + error);
    }
    if (openFailure != null) {
      return Decision.fail("resource_error", true, "the task could not become a conversation in the gateway: " + openFailure);
    }
    return Decision.complete();
  }

  /** The agent SDK's rule: what it retries (and, when that fails again, reports in friendly words). */
  static boolean transientError(String message) {
    return BackendHandler.FRIENDLY_UNAVAILABLE.equals(message) || BackendHandler.FRIENDLY_UNAVAILABLE_AFTER_TOOLS.equals(message)
      || TransientErrors.retryable(message);
  }

  private static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
