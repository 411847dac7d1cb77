package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.AgentQuery;
import dev.conclave.gateway.model.MemberNames;
import dev.conclave.gateway.registry.AgentRegistry;
import dev.conclave.gateway.store.RegistryStore;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * The registry and lifecycle ops of a session ({@code agent_query}, {@code register_agent},
 * {@code lifecycle_transition}): the same services as the HTTP API, answered as session events.
 * They need no configured session. One per node, shared by its sessions.
 */
public final class RegistryOps {

  /** The session protocol names its members in snake_case, as seed 004 does. */
  private static final MemberNames NAMES = MemberNames.SNAKE_CASE;

  private final AgentRegistry registry;
  private final RegistryStore store;
  private final Lifecycle lifecycle;

  public RegistryOps(AgentRegistry registry, RegistryStore store, Lifecycle lifecycle) {
    this.registry = registry;
    this.store = store;
    this.lifecycle = lifecycle;
  }

  Future<JsonObject> query(Caller caller, JsonObject op) {
    return registry.query(caller, AgentQuery.fromJson(Submissions.body(op)), NAMES)
      .map(agents -> EventMapping.msg("agent_query_result").put("agents", new JsonArray(agents)));
  }

  Future<JsonObject> register(Caller caller, JsonObject op) {
    return admin(caller, Ops.REGISTER_AGENT).compose(v -> registry.register(caller, Submissions.body(op), NAMES))
      .map(entry -> EventMapping.msg("agent_registered").put("agent", entry));
  }

  /**
   * Changes an agent's lifecycle state (the session's agent unless {@code agent_id} says); answers
   * the {@code lifecycle_event}, which a caller following the agent's own conversation also gets
   * from there.
   */
  Future<JsonObject> transition(Caller caller, JsonObject op, String sessionAgent, String sessionLabel) {
    String to = Submissions.text(op, "to").orElseThrow(() -> GatewayErrors.required("to"));
    LifecycleState state = LifecycleState.parse(to).orElseThrow(() -> GatewayErrors.badLifecycleState(to));
    String target = Submissions.text(op, "agent_id").orElse(sessionAgent);
    if (target == null) {
      return Future.failedFuture(GatewayErrors.required("agent_id"));
    }
    String reason = Submissions.text(op, "reason").orElse("operator request (" + sessionLabel + ")");
    return admin(caller, Ops.LIFECYCLE_TRANSITION).compose(v -> lifecycle.transition(target, state, reason, Optional.of(caller.principalId())))
      .map(t -> {
        JsonObject event = t.lifecycleEvent();
        event.remove("type");
        return EventMapping.msg("lifecycle_event").mergeIn(event);
      });
  }

  /** The agent a {@code configure_session} names: by id (it must be known) or by query (a connected Running match first). */
  Future<String> resolve(Caller caller, Optional<String> agentId, Object query) {
    if (agentId.isPresent()) {
      return store.find(agentId.get()).compose(e -> e.isPresent() ? Future.succeededFuture(agentId.get())
        : Future.failedFuture(GatewayErrors.agentNotFound(agentId.get())));
    }
    if (!(query instanceof JsonObject q)) {
      return Future.failedFuture(GatewayErrors.badSubmission("configure_session needs agent_id, or agent_query (an object)"));
    }
    return registry.query(caller, AgentQuery.fromJson(q), NAMES).compose(RegistryOps::pick);
  }

  private static Future<String> pick(List<JsonObject> agents) {
    return agents.stream().filter(a -> "connected".equals(a.getString("status")) && "Running".equals(a.getString("lifecycle"))).findFirst()
      .or(() -> agents.stream().findFirst())
      .map(a -> Future.succeededFuture(a.getString("agent_id")))
      .orElseGet(() -> Future.failedFuture(GatewayErrors.noAgentMatches()));
  }

  private static Future<Void> admin(Caller caller, String op) {
    try {
      Audience.ADMINS.check(caller, "session op " + op);
      return Future.succeededFuture();
    } catch (ConclaveException e) {
      return Future.failedFuture(e);
    }
  }
}
