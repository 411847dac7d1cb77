package dev.conclave.agentruntime.gate;

import dev.conclave.agent.ToolState;
import dev.conclave.agent.backend.BackendCallbacks;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs every tool call a backend wants through the policy before it runs, and reports each step:
 *
 * <ul>
 *   <li>allowed: {@code tool_use}, {@code RUNNING}, the tool runs, {@code tool_result},
 *       {@code COMPLETED} or {@code FAILED};</li>
 *   <li>asked: {@code tool_use}, {@code AWAITING_APPROVAL} and a {@code tool_approval_request};
 *       approved (or approved earlier with approve-all): as allowed; refused: {@code DENIED};
 *       no answer within the approval timeout: {@code TIMEOUT};</li>
 *   <li>denied by the policy: {@code tool_use}, {@code DENIED} with the reason.</li>
 * </ul>
 *
 * A call that did not run ends with a {@code tool_result} marked as an error that says why, and the
 * model is told the same: a refused tool is never skipped silently.
 */
public final class ToolGate {

  private static final Logger LOG = LoggerFactory.getLogger(ToolGate.class);

  private final Vertx vertx;
  private final ToolPolicy policy;
  private final Path workdir;
  private final Duration approvalTimeout;
  private volatile WriteGuard guard = WriteGuard.NONE;

  public ToolGate(Vertx vertx, ToolPolicy policy, Path workdir, Duration approvalTimeout) {
    this.vertx = vertx;
    this.policy = policy;
    this.workdir = workdir;
    this.approvalTimeout = approvalTimeout;
  }

  public ToolPolicy policy() {
    return policy;
  }

  /** How long an asked tool waits for a decision before it counts as denied. */
  public Duration approvalTimeout() {
    return approvalTimeout;
  }

  public GateMode mode() {
    return policy.mode();
  }

  /** Sets what an allowed call must also hold before it runs (the swarm's file leases). */
  public void guard(WriteGuard guard) {
    this.guard = guard;
  }

  /** The longest a decision may take: the approval timeout plus the guard's longest wait. CLIs wait this for the gate. */
  public Duration decisionLimit() {
    return approvalTimeout.plus(guard.maxWait());
  }

  /** The policy's verdict alone, for tools a backend only sees after they ran. */
  public Verdict verdict(String tool, String inputJson) {
    return policy.evaluate(tool, inputJson, workdir);
  }

  /**
   * Gates one call and, when it may run, runs it with {@code runner}. Completes with what the model
   * should be told; never fails (a failing runner becomes a failed outcome).
   */
  public Future<ToolOutcome> run(String toolId, String tool, String inputJson, BackendCallbacks callbacks,
                                 Supplier<Future<ToolOutcome>> runner) {
    return callbacks.toolUse(toolId, tool, inputJson)
      .compose(v -> decide(toolId, tool, inputJson, callbacks))
      .compose(d -> d.allowed() ? execute(toolId, callbacks, runner) : Future.succeededFuture(ToolOutcome.refused(d.reason())));
  }

  /**
   * Decides one call whose {@code tool_use} was already reported, and reports the decision: an
   * allowed call reports nothing yet (whoever runs it reports {@code RUNNING}); an asked one reports
   * {@code AWAITING_APPROVAL} and the approval request, then {@code DENIED} or {@code TIMEOUT} when it
   * is not approved; a refused call ends with a {@code tool_result} marked as an error that says
   * why. Never fails.
   */
  public Future<GateDecision> decide(String toolId, String tool, String inputJson, BackendCallbacks callbacks) {
    Verdict verdict = verdict(tool, inputJson);
    LOG.info("tool gate tool={} id={} verdict={} reason={}", tool, toolId, verdict.action(), verdict.reason());
    return switch (verdict.action()) {
      case DENY -> callbacks.toolState(toolId, ToolState.DENIED, verdict.reason())
        .transform(ar -> refuse(toolId, verdict.reason(), callbacks));
      case ALLOW -> guarded(toolId, tool, inputJson, callbacks);
      case ASK -> ask(toolId, tool, inputJson, callbacks)
        .compose(d -> d.allowed() ? guarded(toolId, tool, inputJson, callbacks) : Future.succeededFuture(d));
    };
  }

  /** An allowed call runs once the guard holds what it needs; refused by the guard, it ends {@code DENIED}. */
  private Future<GateDecision> guarded(String toolId, String tool, String inputJson, BackendCallbacks callbacks) {
    return guard.beforeRun(toolId, tool, inputJson).recover(err -> Future.succeededFuture(Optional.of("denied: " + err.getMessage())))
      .compose(refusal -> refusal.isEmpty() ? Future.succeededFuture(GateDecision.allow())
        : callbacks.toolState(toolId, ToolState.DENIED, refusal.get()).transform(ar -> refuse(toolId, refusal.get(), callbacks)));
  }

  private Future<GateDecision> ask(String toolId, String tool, String inputJson, BackendCallbacks callbacks) {
    Promise<String> decision = Promise.promise();   // "approved", "denied" or "timeout"
    long timer = vertx.setTimer(Math.max(1, approvalTimeout.toMillis()), t -> decision.tryComplete("timeout"));
    callbacks.canUseTool(toolId, tool, inputJson).onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.failed()) {
        decision.tryFail(ar.cause());
      } else {
        decision.tryComplete(ar.result() ? "approved" : "denied");
      }
    });
    return decision.future().transform(ar -> {
      if (ar.failed()) {
        // the request ended or the stream dropped while waiting: nothing more reaches anyone
        return Future.succeededFuture(GateDecision.refuse("the request ended before " + tool + " was approved"));
      }
      return switch (ar.result()) {
        case "approved" -> Future.succeededFuture(GateDecision.allow());
        case "denied" -> refuse(toolId, "denied: the user did not approve " + tool, callbacks);
        default -> {
          String reason = "denied: no approval for " + tool + " within " + approvalTimeout.toSeconds() + " s";
          yield callbacks.toolState(toolId, ToolState.TIMEOUT, reason).transform(x -> refuse(toolId, reason, callbacks));
        }
      };
    });
  }

  private Future<ToolOutcome> execute(String toolId, BackendCallbacks callbacks, Supplier<Future<ToolOutcome>> runner) {
    return callbacks.toolState(toolId, ToolState.RUNNING, null)
      .compose(v -> {
        Future<ToolOutcome> ran;
        try {
          ran = runner.get();
        } catch (RuntimeException e) {
          ran = Future.failedFuture(e);
        }
        return ran.recover(err -> Future.succeededFuture(ToolOutcome.failed("the tool failed: " + err.getMessage())));
      })
      .compose(out -> callbacks.toolFinished(toolId, out.text(), out.isError()).transform(x -> Future.succeededFuture(out)));
  }

  private static Future<GateDecision> refuse(String toolId, String reason, BackendCallbacks callbacks) {
    return callbacks.toolResult(toolId, reason, true).transform(x -> Future.succeededFuture(GateDecision.refuse(reason)));
  }
}
