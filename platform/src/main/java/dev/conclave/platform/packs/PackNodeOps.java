package dev.conclave.platform.packs;

import io.vertx.core.json.JsonObject;

/**
 * The messages a pack-host node takes on {@code Addresses.packHostNode(node)}: the one definition of
 * their shapes, used by senders and by the pack host that handles them.
 */
public final class PackNodeOps {

  /**
   * Run a call here. Fields: {@code call} ({@link ToolCall} JSON), {@code traceContext} (optional: the
   * caller's W3C traceparent, so the pack host's span joins the caller's trace whatever the event
   * bus carried); reply: {@link ToolOutcome} JSON.
   */
  public static final String EXECUTE = "execute";
  /**
   * A pack's result arrived at another node. Fields: {@code principalId}, {@code response}
   * (ExecuteToolResponse, protobuf, base64); reply: {@code {"accepted": bool, "reason"}}.
   */
  public static final String TOOL_RESULT = "tool-result";
  /** End a pack's stream that a newer registration replaced. Fields: {@code packId}, {@code connection}. */
  public static final String SUPERSEDE = "supersede";

  public static final String OP = "op";
  static final String TRACE_CONTEXT = "traceContext";

  private PackNodeOps() {
  }

  public static JsonObject execute(ToolCall call, java.util.Optional<String> traceContext) {
    JsonObject op = new JsonObject().put(OP, EXECUTE).put("call", call.toJson());
    traceContext.ifPresent(t -> op.put(TRACE_CONTEXT, t));
    return op;
  }

  /** The caller's trace context in an {@link #EXECUTE} op; empty when it sent none. */
  public static java.util.Optional<String> traceContext(JsonObject op) {
    return java.util.Optional.ofNullable(op.getString(TRACE_CONTEXT));
  }

  /** A finished call for the call record ({@code Addresses.PACK_CALL_RECORDS}): what ran where, how it ended and when. */
  public static JsonObject callRecord(ToolCall call, String packId, String node, ToolOutcome outcome, java.time.Instant startedAt,
                                      java.time.Duration took) {
    return new JsonObject().put("call", call.toJson()).put("packId", packId).put("node", node).put("outcome", outcome.toJson())
      .put("startedAt", startedAt.toString()).put("tookNanos", took.toNanos());
  }

  public static JsonObject toolResult(String principalId, String responseBase64) {
    return new JsonObject().put(OP, TOOL_RESULT).put("principalId", principalId).put("response", responseBase64);
  }

  public static JsonObject supersede(String packId, String connection) {
    return new JsonObject().put(OP, SUPERSEDE).put("packId", packId).put("connection", connection);
  }
}
