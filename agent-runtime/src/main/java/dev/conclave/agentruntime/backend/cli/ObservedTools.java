package dev.conclave.agentruntime.backend.cli;

import dev.conclave.agent.ToolState;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agentruntime.gate.ToolGate;
import dev.conclave.agentruntime.gate.Verdict;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Tools a CLI runs itself, as the runtime sees them go by. A CLI's own permission settings (made
 * from the policy) decide first; the runtime checks each tool again against the policy as the CLI
 * announces it, and a tool the policy denies stops the run: it is reported {@code DENIED} with the
 * reason and the run ends with an error saying so. Everything else is reported as it happens
 * ({@code tool_use}, {@code RUNNING}, {@code tool_result}, {@code COMPLETED} or {@code FAILED}).
 */
public final class ObservedTools {

  private final ToolGate gate;
  private final BackendCallbacks callbacks;
  private final Set<String> started = new HashSet<>();
  private final Set<String> finished = new HashSet<>();
  private final List<String> names = new ArrayList<>();
  private volatile String denied;

  public ObservedTools(ToolGate gate, BackendCallbacks callbacks) {
    this.gate = gate;
    this.callbacks = callbacks;
  }

  public Future<Void> started(String id, String name, String inputJson) {
    if (!started.add(id)) {
      return Future.succeededFuture();
    }
    names.add(name);
    Verdict v = gate.verdict(name, inputJson);
    if (v.action() == Verdict.Action.DENY) {
      denied = name + ": " + v.reason();
      finished.add(id);
      return callbacks.toolUse(id, name, inputJson)
        .compose(x -> callbacks.toolState(id, ToolState.DENIED, v.reason()))
        .compose(x -> callbacks.toolResult(id, v.reason(), true));
    }
    return callbacks.toolStarted(id, name, inputJson);
  }

  public Future<Void> finished(String id, String name, String inputJson, String output, boolean isError) {
    Future<Void> start = started.contains(id) ? Future.succeededFuture() : started(id, name, inputJson);
    return start.compose(v -> finished.add(id) ? callbacks.toolFinished(id, output, isError) : Future.succeededFuture());
  }

  /** A tool the CLI's own permissions refused. */
  public Future<Void> refusedByCli(String id, String name, String detail) {
    return callbacks.toolState(id, ToolState.DENIED, detail);
  }

  /** Set once a tool the policy denies went by: the run must stop. */
  public String denied() {
    return denied;
  }

  public List<String> names() {
    return List.copyOf(names);
  }
}
