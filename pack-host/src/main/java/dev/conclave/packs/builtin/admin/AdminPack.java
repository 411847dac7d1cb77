package dev.conclave.packs.builtin.admin;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.builtin.GatewayCalls;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.platform.packs.GatewayToolOps;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * {@code builtin:admin} (capability {@code admin}, which an agent gets only when an admin granted it
 * to its principal): look at and talk to the other agents. The gateway answers these (it holds
 * presence and conversations) and decides, at every call, who the agent acts as (its owner's reach,
 * and only while the grant stands); the tools only ask it.
 */
public final class AdminPack {

  public static final String ID = "builtin:admin";
  public static final String CAPABILITY = dev.conclave.platform.auth.CapabilityGrants.ADMIN;
  /** How long admin_send_message waits for the other agent's reply. */
  static final int SEND_TIMEOUT_SECONDS = 300;
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);

  private AdminPack() {
  }

  public static BuiltinPack create(GatewayCalls gateway) {
    return new BuiltinPack(ID, CAPABILITY, List.of(
      tool("admin_list_agents", "List connected agents", "{\"type\":\"object\",\"properties\":{}}", 0,
        (caller, input) -> gateway.request(from(GatewayToolOps.LIST_AGENTS, caller),
          QUERY_TIMEOUT).map(JsonObject::encode)),
      tool("admin_agent_messages",
        "Read all messages for an agent in chronological order with token usage stats. Supports cursor-based pagination.",
        "{\"type\":\"object\",\"properties\":{\"agent_id\":{\"type\":\"string\",\"description\":\"The agent to inspect\"},"
          + "\"limit\":{\"type\":\"integer\",\"description\":\"Events per page (default 50, max 500)\"},"
          + "\"cursor\":{\"type\":\"string\",\"description\":\"Pagination cursor from previous response\"}},\"required\":[\"agent_id\"]}", 0,
        (caller, input) -> gateway.request(from(GatewayToolOps.AGENT_MESSAGES, caller)
          .put("agentId", input.getString("agent_id", "")).put("limit", input.getInteger("limit", 0))
          .put("cursor", input.getString("cursor", "")), QUERY_TIMEOUT).map(JsonObject::encode)),
      tool("admin_send_message", "Send message to another agent",
        "{\"type\":\"object\",\"properties\":{\"agent_id\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
          + "\"required\":[\"agent_id\",\"content\"]}", SEND_TIMEOUT_SECONDS,
        (caller, input) -> gateway.request(from(GatewayToolOps.SEND_MESSAGE, caller)
          .put("agentId", input.getString("agent_id", "")).put("content", input.getString("content", ""))
          .put("idempotencyKey", "admin-" + UUID.randomUUID())
          .put("timeoutMs", (SEND_TIMEOUT_SECONDS - 5) * 1000L), Duration.ofSeconds(SEND_TIMEOUT_SECONDS)).map(JsonObject::encode))));
  }

  /** An op on behalf of the calling agent: the gateway checks that agent's grant and acts with its owner's reach. */
  private static JsonObject from(String op, ToolCaller caller) {
    return GatewayToolOps.request(op).put("fromAgentId", caller.agentId()).put("fromPrincipalId", caller.principalId().toString());
  }

  private static BuiltinTool tool(String name, String description, String schema, int timeoutSeconds,
                                  BiFunction<ToolCaller, JsonObject, Future<String>> run) {
    ToolDefinition definition = ToolDefinition.newBuilder().setName(name).setDescription(description).setInputSchemaJson(schema)
      .addRequiredCapabilities(CAPABILITY).setTimeoutSeconds(timeoutSeconds).build();
    return new BuiltinTool() {
      @Override
      public ToolDefinition definition() {
        return definition;
      }

      @Override
      public Future<String> run(ToolCaller caller, JsonObject input) {
        return run.apply(caller, input);
      }
    };
  }
}
