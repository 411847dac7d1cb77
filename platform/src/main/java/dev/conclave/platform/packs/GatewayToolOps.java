package dev.conclave.platform.packs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * What the pack host's MCP endpoint asks of the gateway over {@code Addresses.GATEWAY_TOOLS}, and
 * how a user's answer is announced on {@code Addresses.QUESTION_ANSWERED}: the one definition of
 * these messages. (The gateway's own tools, ask_user and admin_*, run in the gateway and ask it
 * nothing over the bus.)
 */
public final class GatewayToolOps {

  public static final String OP = "op";

  /**
   * The trace of an agent's request in flight, for its tool calls over MCP. Fields: {@code agentId}.
   * Reply: {@code {"requestId", "traceContext"}} (a W3C traceparent), or {@code {}} when the agent has
   * no request in flight or it was stored without a trace.
   */
  public static final String REQUEST_TRACE = "request-trace";
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
