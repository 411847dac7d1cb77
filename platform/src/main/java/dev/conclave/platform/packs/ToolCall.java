package dev.conclave.platform.packs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * One tool call on behalf of an agent: who asks (agent, principal and the capabilities that agent
 * registered with), which tool, with what input, and where it came from ({@code agent-stream} or
 * {@code mcp}). {@code callId} is unique per call; {@code clientRequestId} is the id the caller used
 * (the agent's {@code ExecutePackTool.request_id}), kept for logs and the call record.
 */
public record ToolCall(String callId, String clientRequestId, String agentId, UUID principalId, Set<String> capabilities,
                       String toolName, String inputJson, String origin) {

  public static final String ORIGIN_AGENT_STREAM = "agent-stream";
  public static final String ORIGIN_MCP = "mcp";

  public ToolCall {
    capabilities = Set.copyOf(capabilities);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("callId", callId)
      .put("clientRequestId", clientRequestId)
      .put("agentId", agentId)
      .put("principalId", principalId.toString())
      .put("capabilities", new JsonArray(capabilities.stream().sorted().toList()))
      .put("toolName", toolName)
      .put("inputJson", inputJson)
      .put("origin", origin);
  }

  public static ToolCall fromJson(JsonObject json) {
    Set<String> caps = new HashSet<>();
    json.getJsonArray("capabilities", new JsonArray()).forEach(c -> caps.add(String.valueOf(c)));
    return new ToolCall(json.getString("callId"), json.getString("clientRequestId", ""), json.getString("agentId"),
      UUID.fromString(json.getString("principalId")), caps, json.getString("toolName"), json.getString("inputJson", ""),
      json.getString("origin", ORIGIN_AGENT_STREAM));
  }
}
