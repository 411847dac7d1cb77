package dev.conclave.gateway.tools.builtin;

import dev.conclave.gateway.control.ActingOwner;
import dev.conclave.gateway.control.AgentPrompts;
import dev.conclave.gateway.control.AgentTools;
import dev.conclave.gateway.tools.GatewayTool;
import dev.conclave.gateway.tools.ToolError;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.CapabilityGrants;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * {@code builtin:admin} (capability {@code admin}, which an agent gets only when an admin granted it
 * to its principal): look at and talk to the other agents. At every call, {@link ActingOwner} decides
 * who the agent acts as (its owner's reach, and only while the grant stands); {@link AgentTools} and
 * {@link AgentPrompts} answer with that reach.
 */
public final class AdminTools {

  public static final String PACK_ID = "builtin:admin";
  public static final String CAPABILITY = CapabilityGrants.ADMIN;
  /** How long admin_send_message waits for the other agent's reply. */
  static final int SEND_TIMEOUT_SECONDS = 300;
  private static final Logger LOG = LoggerFactory.getLogger(AdminTools.class);

  private AdminTools() {
  }

  public static List<GatewayTool> create(ActingOwner owners, AgentTools agents, AgentPrompts prompts) {
    return List.of(
      tool("admin_list_agents", "List connected agents", "{\"type\":\"object\",\"properties\":{}}", 0,
        (caller, input) -> actor(owners, caller).compose(agents::listConnected)),
      tool("admin_agent_messages",
        "Read all messages for an agent in chronological order with token usage stats. Supports cursor-based pagination.",
        "{\"type\":\"object\",\"properties\":{\"agent_id\":{\"type\":\"string\",\"description\":\"The agent to inspect\"},"
          + "\"limit\":{\"type\":\"integer\",\"description\":\"Events per page (default 50, max 500)\"},"
          + "\"cursor\":{\"type\":\"string\",\"description\":\"Pagination cursor from previous response\"}},\"required\":[\"agent_id\"]}", 0,
        (caller, input) -> actor(owners, caller).compose(actor -> agents.messages(actor,
          input.getString("agent_id", ""), input.getInteger("limit", 0), input.getString("cursor", "")))),
      tool("admin_send_message", "Send message to another agent",
        "{\"type\":\"object\",\"properties\":{\"agent_id\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
          + "\"required\":[\"agent_id\",\"content\"]}", SEND_TIMEOUT_SECONDS,
        (caller, input) -> actor(owners, caller).compose(actor -> prompts.send(actor,
          input.getString("agent_id", ""), input.getString("content", ""), caller.agentId(),
          "admin-" + UUID.randomUUID(), Duration.ofSeconds(SEND_TIMEOUT_SECONDS - 5)))));
  }

  /** Who the calling agent acts as: its owner, if its principal holds the admin grant (checked at this call). */
  private static Future<Caller> actor(ActingOwner owners, ToolCall caller) {
    return owners.of(caller.agentId(), Optional.of(caller.principalId()));
  }

  private static GatewayTool tool(String name, String description, String schema, int timeoutSeconds,
                                  BiFunction<ToolCall, JsonObject, Future<JsonObject>> run) {
    ToolDefinition definition = ToolDefinition.newBuilder().setName(name).setDescription(description).setInputSchemaJson(schema)
      .addRequiredCapabilities(CAPABILITY).setTimeoutSeconds(timeoutSeconds).build();
    return new GatewayTool() {
      @Override
      public String packId() {
        return PACK_ID;
      }

      @Override
      public ToolDefinition definition() {
        return definition;
      }

      @Override
      public Future<String> run(ToolCall caller, JsonObject input) {
        Future<JsonObject> result;
        try {
          result = run.apply(caller, input);
        } catch (RuntimeException e) {
          result = Future.failedFuture(e);
        }
        // the gateway's answer, or its refusal as the tool's error (no grant, not the owner, no such agent)
        return result.map(JsonObject::encode).recover(err -> Future.failedFuture(ToolError.of(LOG, name, err)));
      }
    };
  }
}
