package dev.conclave.platform.packs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * What built-in tools ask of the gateway over {@code Addresses.GATEWAY_TOOLS}, and how a user's
 * answer is announced on {@code Addresses.QUESTION_ANSWERED}: the one definition of these messages,
 * used by the pack host (sender) and the gateway (handler). A failed request's message is the error
 * the agent sees.
 */
public final class GatewayToolOps {

  public static final String OP = "op";

  /**
   * Show an agent's question to the people following its conversation. Fields: {@code agentId},
   * {@code question} (UserQuestionRequest, protobuf, base64; its question_id and timeout_seconds are
   * set). Reply: {@code {"conversationKey"}}.
   */
  public static final String ASK_USER = "ask-user";
  /**
   * The asker gave up waiting. Fields: {@code questionId}. Reply: {@code {"state": "expired"}}, or, when
   * an answer won the race, {@code {"state": "answered", "selected", "customText"?}}.
   */
  public static final String EXPIRE_QUESTION = "expire-question";
  /**
   * The trace of an agent's request in flight, for its tool calls over MCP. Fields: {@code agentId}.
   * Reply: {@code {"requestId", "traceContext"}} (a W3C traceparent), or {@code {}} when the agent has
   * no request in flight or it was stored without a trace.
   */
  public static final String REQUEST_TRACE = "request-trace";
  /**
   * Agents connected anywhere in the cluster that the calling agent's owner may act on. Fields:
   * {@code fromAgentId}, {@code fromPrincipalId}. Reply: {@code {"agents": [...], "count"}}. The admin
   * ops all need the {@code admin} capability granted to the calling agent's principal (checked at
   * each call) and act with the access of the calling agent's owner (no owner: of its own principal,
   * with no roles).
   */
  public static final String LIST_AGENTS = "list-agents";
  /** A page of an agent's conversation with usage totals. Fields: {@code fromAgentId}, {@code fromPrincipalId}, {@code agentId}, {@code limit}, {@code cursor}. */
  public static final String AGENT_MESSAGES = "agent-messages";
  /**
   * Send a message to an agent and wait for its reply. Fields: {@code agentId}, {@code content},
   * {@code fromAgentId}, {@code fromPrincipalId}, {@code idempotencyKey}, {@code timeoutMs}. Reply: {@code {"agent_id", "done", "response", "status"}}.
   */
  public static final String SEND_MESSAGE = "send-message";

  /** A user's answer to a question. */
  public record Answer(String questionId, String agentId, List<String> selected, Optional<String> customText) {

    public Answer {
      selected = List.copyOf(selected);
    }

    public JsonObject toJson() {
      JsonObject json = new JsonObject().put("questionId", questionId).put("agentId", agentId)
        .put("selected", new JsonArray(selected));
      customText.ifPresent(t -> json.put("customText", t));
      return json;
    }

    public static Answer fromJson(JsonObject json) {
      List<String> selected = json.getJsonArray("selected", new JsonArray()).stream().map(String::valueOf).toList();
      return new Answer(json.getString("questionId"), json.getString("agentId", ""), selected,
        Optional.ofNullable(json.getString("customText")));
    }
  }

  private GatewayToolOps() {
  }

  public static JsonObject request(String op) {
    return new JsonObject().put(OP, op);
  }
}
