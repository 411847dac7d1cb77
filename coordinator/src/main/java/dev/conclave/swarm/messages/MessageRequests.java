package dev.conclave.swarm.messages;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;

/**
 * Normalizes SEND_MESSAGE, RECEIVE_MESSAGES and ACK_MESSAGE requests. Checks sizes and id formats;
 * swarm.op_send_message, op_receive_messages and op_ack_message check JSON types, required members,
 * enumerations, timestamps, the message id's format and the ranges of expiresIn and limit.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 * The payload's size is counted in its encoding as Vert.x writes it, which SQL does not see (jsonb
 * prints its own spacing).
 */
public final class MessageRequests {

  private MessageRequests() {
  }

  /** SEND_MESSAGE: {agentId, message: {to?, type, payload, ackRequired?, expiresIn? (ms)}}; no "to" broadcasts. */
  public static JsonObject send(JsonFields body) {
    JsonFields message = body.nested("message");
    JsonOut out = JsonOut.object().put("agentId", body.idFormat("agentId"));
    if (message == null) {
      return out.put("message", body.raw("message")).json();
    }
    Object payload = message.raw("payload");
    if (payload != null && Json.encode(payload).getBytes(StandardCharsets.UTF_8).length > Limits.PAYLOAD_BYTES) {
      throw SwarmErrors.invalidField(message.path("payload"), "must encode to at most " + Limits.PAYLOAD_BYTES + " bytes");
    }
    return out
      .put("message", JsonOut.object()
        .put("to", message.idFormat("to"))
        .put("type", message.raw("type"))
        .put("payload", payload)
        .put("ackRequired", message.raw("ackRequired"))
        .put("expiresIn", message.raw("expiresIn")))
      .json();
  }

  /** RECEIVE_MESSAGES: {agentId, since?, types?, limit? (1-1000, default 100)}. */
  public static JsonObject receive(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("since", body.sized("since", 64))
      .put("types", body.counted("types", 16))
      .put("limit", body.raw("limit"))
      .json();
  }

  /** ACK_MESSAGE: {agentId, messageId}. */
  public static JsonObject ack(JsonFields body) {
    return JsonOut.object().put("agentId", body.idFormat("agentId")).put("messageId", body.raw("messageId")).json();
  }
}
