package dev.conclave.gateway.lifecycle;

import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.MemberNames;
import io.vertx.core.json.JsonObject;

import java.time.Instant;

/** A committed lifecycle transition of one agent, and its event as seed 004 names it. */
public record Transition(String agentId, LifecycleState from, LifecycleState to, String reason, Instant at) {

  public String event() {
    return LifecycleState.eventName(from, to);
  }

  /** The {@code LifecycleEvent}: on the event bus, in the ledger, in sessions (seed 004's snake_case names). */
  public JsonObject lifecycleEvent() {
    return lifecycleEvent(MemberNames.SNAKE_CASE);
  }

  /** The {@code LifecycleEvent} with its member names for a surface (HTTP: camelCase). */
  public JsonObject lifecycleEvent(MemberNames names) {
    return new JsonObject().put("type", "lifecycle_event").put(names.of("agentId"), agentId).put("from", from.display()).put("to", to.display())
      .put("event", event()).put("reason", reason).put("at", at.toString());
  }

  /** The {@code AgentStatusChanged} that goes with it. */
  public JsonObject statusChanged(boolean connected) {
    return new JsonObject().put("type", "agent_status_changed").put("agent_id", agentId).put("status", to.display())
      .put("lifecycle", to.id()).put("connected", connected).put("at", at.toString());
  }
}
