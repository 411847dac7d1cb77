package dev.conclave.packs.registry;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;

/**
 * A live registration of a pack ({@code Addresses.PACKS_MAP}): which stream on which node holds it,
 * for which principal, and which of its tools it won.
 */
public record PackRecord(String packId, String version, String node, String member, String connection, String principalId,
                         List<String> tools, Instant registeredAt) {

  public PackRecord {
    tools = List.copyOf(tools);
  }

  public PackRecord withTools(List<String> accepted) {
    return new PackRecord(packId, version, node, member, connection, principalId, accepted, registeredAt);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("packId", packId)
      .put("version", version)
      .put("node", node)
      .put("member", member)
      .put("connection", connection)
      .put("principalId", principalId)
      .put("tools", new JsonArray(tools))
      .put("registeredAt", registeredAt.toString());
  }

  public static PackRecord fromJson(JsonObject json) {
    return new PackRecord(json.getString("packId"), json.getString("version", ""), json.getString("node"), json.getString("member"),
      json.getString("connection"), json.getString("principalId", ""),
      json.getJsonArray("tools", new JsonArray()).stream().map(String::valueOf).toList(),
      Instant.parse(json.getString("registeredAt", Instant.EPOCH.toString())));
  }
}
