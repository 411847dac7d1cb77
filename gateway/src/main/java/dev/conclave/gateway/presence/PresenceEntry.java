package dev.conclave.gateway.presence;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.proto.coven.AgentMetadata;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.Serializable;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Which node and session (epoch) hold an agent's stream right now, with what the agent declared:
 * name, capabilities, protocol features and metadata. Immutable, so a node alone keeps it in its
 * presence map as it is, the object its session holds ({@link Serializable} only because Vert.x's
 * async map takes nothing else; a node alone stores it without serializing, and a cluster stores
 * {@link #toJson}).
 */
public record PresenceEntry(String agentId, UUID principalId, String node, long epoch, String name, List<String> capabilities,
                            List<String> features, AgentMetadata metadata, Instant connectedAt) implements Serializable {

  public PresenceEntry {
    capabilities = List.copyOf(capabilities);
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
      .put("capabilities", new JsonArray(capabilities))
      .put("features", new JsonArray(features))
      .put("metadata", Base64.getEncoder().encodeToString(metadata.toByteArray()))
      .put("connectedAt", connectedAt.toString());
  }

  public static PresenceEntry fromJson(JsonObject json) {
    AgentMetadata metadata;
    try {
      metadata = AgentMetadata.parseFrom(Base64.getDecoder().decode(json.getString("metadata", "")));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      metadata = AgentMetadata.getDefaultInstance();
    }
    return new PresenceEntry(
      json.getString("agentId"),
      UUID.fromString(json.getString("principalId")),
      json.getString("node"),
      json.getLong("epoch"),
      json.getString("name", ""),
      json.getJsonArray("capabilities", new JsonArray()).stream().map(String::valueOf).toList(),
      json.getJsonArray("features", new JsonArray()).stream().map(String::valueOf).toList(),
      metadata,
      Instant.parse(json.getString("connectedAt")));
  }
}
