package dev.conclave.platform.packs;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.json.JsonObject;

import java.util.Base64;

/**
 * A tool's entry in the cluster-wide registry ({@code Addresses.PACKS_TOOLS_MAP}): its definition
 * and who runs it. Built-in tools have no member or connection and run on any pack-host node, or,
 * for the gateway's own ({@link #GATEWAY} as their node), on any gateway node; a pack's tools run on
 * the node that holds the pack's stream ({@code connection} names that stream).
 */
public record ToolEntry(String name, String packId, boolean builtin, String node, String member, String connection,
                        String principalId, ToolDefinition definition) {

  /** The node of a built-in that any gateway node runs (the gateway's own tools, such as ask_user). */
  public static final String GATEWAY = "@gateway";

  /** A built-in tool that any pack-host node runs. */
  public static ToolEntry builtin(String packId, ToolDefinition definition) {
    return new ToolEntry(definition.getName(), packId, true, "", "", "", "", definition);
  }

  /** A built-in tool of the gateway's own, which any gateway node runs. */
  public static ToolEntry gatewayBuiltin(String packId, ToolDefinition definition) {
    return new ToolEntry(definition.getName(), packId, true, GATEWAY, "", "", "", definition);
  }

  /** Whether the gateway runs this tool, not a pack host. */
  public boolean onGateway() {
    return builtin && GATEWAY.equals(node);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("name", name)
      .put("packId", packId)
      .put("builtin", builtin)
      .put("node", node)
      .put("member", member)
      .put("connection", connection)
      .put("principalId", principalId)
      .put("definition", Base64.getEncoder().encodeToString(definition.toByteArray()));
  }

  public static ToolEntry fromJson(JsonObject json) {
    try {
      return new ToolEntry(json.getString("name"), json.getString("packId"), json.getBoolean("builtin", false),
        json.getString("node", ""), json.getString("member", ""), json.getString("connection", ""),
        json.getString("principalId", ""),
        ToolDefinition.parseFrom(Base64.getDecoder().decode(json.getString("definition", ""))));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("corrupt tool registry entry for " + json.getString("name"), e);
    }
  }
}
