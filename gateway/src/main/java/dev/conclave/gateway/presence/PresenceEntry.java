package dev.conclave.gateway.presence;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Which node and session (epoch) hold an agent's stream right now. */
public record PresenceEntry(String agentId, UUID principalId, String node, long epoch, String name, List<String> features, Instant connectedAt) {

  public PresenceEntry {
    features = List.copyOf(features);
  }

  public boolean declared(String feature) {
    return features.contains(feature);
  }

  public boolean sameSession(PresenceEntry other) {
    return node.equals(other.node) && epoch == other.epoch;
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("agentId", agentId)
      .put("principalId", principalId.toString())
      .put("node", node)
      .put("epoch", epoch)
      .put("name", name)
      .put("features", new JsonArray(features))
      .put("connectedAt", connectedAt.toString());
  }

  public static PresenceEntry fromJson(JsonObject json) {
    return new PresenceEntry(
      json.getString("agentId"),
      UUID.fromString(json.getString("principalId")),
      json.getString("node"),
      json.getLong("epoch"),
      json.getString("name", ""),
      json.getJsonArray("features", new JsonArray()).stream().map(String::valueOf).toList(),
      Instant.parse(json.getString("connectedAt")));
  }
}
