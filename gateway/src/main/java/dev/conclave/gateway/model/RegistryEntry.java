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

  /** The registry entry as HTTP ({@link MemberNames#CAMEL_CASE}) or the session protocol ({@link MemberNames#SNAKE_CASE}) shows it. */
  public JsonObject json(boolean connected, MemberNames names) {
    JsonObject out = new JsonObject()
      .put(names.of("agentId"), agentId)
      .put("name", name)
      .put(names.of("principalId"), principalId.toString())
      .put("lifecycle", lifecycle.display())
      .put(names.of("lifecycleChangedAt"), lifecycleSince.toString())
      .put("status", connected ? "connected" : "offline")
      .put("capabilities", new JsonArray(capabilities))
      .put(names.of("parentId"), parentId.orElse(null))
      .put(names.of("lastSeenAt"), lastSeen.toString());
    classification.ifPresentOrElse(c -> out
      .put("classification", c.notation())
      .put(names.of("primaryType"), c.primaryType())
      .put("domain", c.domain())
      .put("capability", c.capability())
      .put("role", c.role())
      .put(names.of("lifecycleClass"), c.lifecycle())
      .put("security", c.security()), () -> out.putNull("classification"));
    return out;
  }
}
