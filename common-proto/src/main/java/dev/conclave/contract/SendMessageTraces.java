package dev.conclave.contract;

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
    return TraceField.attach(message, SendMessageTrace.newBuilder().putAllTraceContext(context).build().toByteString());
  }

  /** The trace context {@code message} carries; empty when it has none or it is malformed. */
  public static Map<String, String> of(SendMessage message) {
    return TraceField.read(message, SendMessageTrace.parser()).map(SendMessageTrace::getTraceContextMap).orElse(Map.of());
  }
}
