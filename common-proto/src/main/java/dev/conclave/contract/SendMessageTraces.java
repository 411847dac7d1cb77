package dev.conclave.contract;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.trace.SendMessageTrace;

import java.util.Map;

/**
 * The request's trace context carried in a {@code coven.SendMessage} (conclave_trace.proto): written
 * by the gateway as a field coven.proto does not declare, so Coven agents that do not know it skip it,
 * and read back by the agent SDK.
 */
public final class SendMessageTraces {

  private SendMessageTraces() {
  }

  /** Adds {@code context} (W3C header name to value) to {@code message}; nothing when it is empty. */
  public static SendMessage.Builder attach(SendMessage.Builder message, Map<String, String> context) {
    if (context.isEmpty()) {
      return message;
    }
    try {
      return message.mergeUnknownFields(UnknownFieldSet.parseFrom(
        SendMessageTrace.newBuilder().putAllTraceContext(context).build().toByteString()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a SendMessageTrace did not parse back", e);
    }
  }

  /** The trace context {@code message} carries; empty when it has none or it is malformed. */
  public static Map<String, String> of(SendMessage message) {
    if (message.getUnknownFields().asMap().isEmpty()) {
      return Map.of();
    }
    try {
      return SendMessageTrace.parseFrom(message.getUnknownFields().toByteString()).getTraceContextMap();
    } catch (InvalidProtocolBufferException e) {
      return Map.of();
    }
  }
}
