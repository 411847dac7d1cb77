package dev.conclave.swarm.messages;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;

/** Validates and normalizes SEND_MESSAGE, RECEIVE_MESSAGES and ACK_MESSAGE requests. */
public final class MessageRequests {

  private MessageRequests() {
  }

  /** SEND_MESSAGE: {agentId, message: {to?, type, payload, ackRequired?, expiresIn? (ms)}}; no "to" broadcasts. */
  public static JsonObject send(JsonFields body) {
    JsonFields message = body.object("message", true);
    Object payload = message.raw("payload");
    if (payload != null && Json.encode(payload).getBytes(StandardCharsets.UTF_8).length > Limits.PAYLOAD_BYTES) {
      throw SwarmErrors.invalidField(message.path("payload"), "must encode to at most " + Limits.PAYLOAD_BYTES + " bytes");
    }
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("message", JsonOut.object()
        .put("to", message.id("to", false))
        .put("type", message.oneOf("type", true, Vocabulary.MESSAGE_TYPES))
        .put("payload", payload)
        .put("ackRequired", message.bool("ackRequired", false))
        .put("expiresIn", message.integer("expiresIn", false, 1, Limits.MESSAGE_EXPIRY_MS)))
      .json();
  }

  /** RECEIVE_MESSAGES: {agentId, since?, types?, limit? (1-1000, default 100)}. */
  public static JsonObject receive(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("since", body.timestamp("since", false))
      .put("types", body.oneOfEach("types", 16, Vocabulary.MESSAGE_TYPES))
      .put("limit", body.integer("limit", false, 1, Limits.RECEIVE_LIMIT))
      .json();
  }

  /** ACK_MESSAGE: {agentId, messageId}. */
  public static JsonObject ack(JsonFields body) {
    String id = body.string("messageId", true, 64);
    if (!id.matches("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
      throw SwarmErrors.invalidField(body.path("messageId"), "must be a message id (UUID)");
    }
    return JsonOut.object().put("agentId", body.id("agentId", true)).put("messageId", id).json();
  }
}
