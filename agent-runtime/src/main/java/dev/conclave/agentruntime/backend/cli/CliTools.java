package dev.conclave.agentruntime.backend.cli;

import dev.conclave.agent.ToolState;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agentruntime.gate.GateDecision;
import dev.conclave.agentruntime.gate.ToolGate;
import dev.conclave.agentruntime.gate.Verdict;
import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The tools of one CLI run, which the CLI runs itself. Two things tell the runtime about a tool,
 * from two threads and in either order:
 *
 * <ul>
 *   <li>the CLI asks before it runs one ({@link #gate}: Claude Code's permission prompt tool, Codex's
 *       approval requests): the {@link ToolGate} decides, asking a person when the policy says so,
 *       and the answer goes back to the CLI; an allowed tool is reported {@code RUNNING}, a refused
 *       one {@code DENIED} or {@code TIMEOUT} with a {@code tool_result} that says why;</li>
 *   <li>the CLI's output stream shows the tool being announced ({@link #announced}) and finishing
 *       ({@link #finished}).</li>
 * </ul>
 *
 * {@code tool_use} is reported once, by whichever comes first. Both CLIs ask before every tool
 * through a PreToolUse hook ({@link PermissionBridge}); a tool that finished without having been
 * asked about means the CLI did not run the hook (hooks switched off by an administrator, a CLI too
 * old): it is reported as it ran, logged, and checked against the policy after the fact, and one the
 * policy denies stops the run ({@link #stopReason}).
 */
public final class CliTools {

  private static final Logger LOG = LoggerFactory.getLogger(CliTools.class);

  private final ToolGate gate;
  private final BackendCallbacks callbacks;
  private final Map<String, Future<Void>> announced = new HashMap<>();
  private final Map<String, String[]> calls = new LinkedHashMap<>();   // id -> {name, input}, in announcement order
  private final Map<String, Future<GateDecision>> decided = new HashMap<>();
  private final List<String> names = new ArrayList<>();
  private volatile String stopReason;

  public CliTools(ToolGate gate, BackendCallbacks callbacks) {
    this.gate = gate;
    this.callbacks = callbacks;
  }

  /** The stream shows the CLI wants {@code name}: {@code tool_use}, once. */
  public Future<Void> announced(String id, String name, String inputJson) {
    return announce(id, name, inputJson);
  }

  /**
   * The CLI asks whether {@code name} may run. Completes with the decision the CLI must obey; never
   * fails. Asking twice about the same id gives the first decision.
   */
  public Future<GateDecision> gate(String id, String name, String inputJson) {
    Future<GateDecision> decision;
    synchronized (this) {
      decision = decided.get(id);
      if (decision == null) {
        decision = announce(id, name, inputJson)
          .transform(ar -> gate.decide(id, name, inputJson, callbacks))
          .compose(d -> d.allowed()
            ? callbacks.toolState(id, ToolState.RUNNING, null).transform(ar -> Future.succeededFuture(d))
            : Future.succeededFuture(d));
        decided.put(id, decision);
      }
    }
    return decision;
  }

  /**
   * The id to gate a call under. A CLI that asks without the tool_use id (older Claude Code versions
   * leave it out of the hook input or the prompt tool's arguments) gets the id of the announced call
   * with the same name and input, preferring one not decided yet; failing that, {@code fallback}'s.
   */
  public synchronized String callId(String id, String name, String inputJson, Supplier<String> fallback) {
    if (id != null && !id.isBlank()) {
      return id;
    }
    Object input = parse(inputJson);
    String last = null;
    for (Map.Entry<String, String[]> e : calls.entrySet()) {
      if (e.getValue()[0].equals(name) && Objects.equals(parse(e.getValue()[1]), input)) {
        if (!decided.containsKey(e.getKey())) {
          return e.getKey();
        }
        last = e.getKey();
      }
    }
    return last != null ? last : fallback.get();
  }

  private static Object parse(String json) {
    try {
      return new JsonObject(json == null || json.isBlank() ? "{}" : json);
    } catch (DecodeException | ClassCastException e) {
      return json;
    }
  }

  /** The stream shows the tool finished with {@code output}. */
  public Future<Void> finished(String id, String name, String inputJson, String output, boolean isError) {
    Future<GateDecision> decision;
    synchronized (this) {
      decision = decided.get(id);
    }
    if (decision != null) {
      // asked about: a refused tool's result was already reported with the reason
      return decision.compose(d -> d.allowed() ? callbacks.toolFinished(id, output, isError) : Future.succeededFuture());
    }
    Verdict after = gate.verdict(name, inputJson);
    LOG.warn("{} ran without passing the tool gate: the CLI did not run the PreToolUse hook (verdict after the fact: {})",
      name, after.action());
    if (after.action() == Verdict.Action.DENY) {
      stopReason = name + " ran without being asked about, though the policy denies it (" + after.reason() + ")";
    }
    return announce(id, name, inputJson)
      .compose(v -> callbacks.toolState(id, ToolState.RUNNING, null))
      .compose(v -> callbacks.toolFinished(id, output, isError));
  }

  /** The CLI refused the tool by its own rules (not through {@link #gate}). */
  public Future<Void> refusedByCli(String id, String detail) {
    synchronized (this) {
      if (decided.containsKey(id)) {
        return Future.succeededFuture();   // refused through the gate: already reported
      }
    }
    return callbacks.toolState(id, ToolState.DENIED, detail);
  }

  /** Set when a tool the policy denies ran without being asked about: the run must stop. */
  public String stopReason() {
    return stopReason;
  }

  /** The names of the tools the CLI wanted, in order. */
  public synchronized List<String> names() {
    return List.copyOf(names);
  }

  private synchronized Future<Void> announce(String id, String name, String inputJson) {
    Future<Void> f = announced.get(id);
    if (f == null) {
      names.add(name);
      calls.put(id, new String[] {name, inputJson});
      f = callbacks.toolUse(id, name, inputJson);
      announced.put(id, f);
    }
    return f;
  }
}
