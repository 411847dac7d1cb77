package dev.conclave.gateway.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** An agent as the registry knows it: who owns it, its lifecycle state, classification and parent. */
public record RegistryEntry(
  String agentId,
  UUID principalId,
  String name,
  List<String> capabilities,
  LifecycleState lifecycle,
  Instant lifecycleSince,
  Optional<Classification> classification,
  Optional<String> parentId,
  Instant lastSeen) {

  /** The registry entry as HTTP and the session protocol show it (seed 004's snake_case names). */
  public JsonObject json(boolean connected) {
    JsonObject out = new JsonObject()
      .put("agent_id", agentId)
      .put("name", name)
      .put("principal_id", principalId.toString())
      .put("lifecycle", lifecycle.display())
      .put("lifecycle_since", lifecycleSince.toString())
      .put("status", connected ? "connected" : "offline")
      .put("capabilities", new JsonArray(capabilities))
      .put("parent_id", parentId.orElse(null))
      .put("last_seen", lastSeen.toString());
    classification.ifPresentOrElse(c -> out
      .put("classification", c.notation())
      .put("primary_type", c.primaryType())
      .put("domain", c.domain())
      .put("capability", c.capability())
      .put("role", c.role())
      .put("lifecycle_class", c.lifecycle())
      .put("security", c.security()), () -> out.putNull("classification"));
    return out;
  }
}
