package dev.conclave.contract;

import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.trace.ExecuteToolRequestTrace;

import java.util.Map;

/**
 * The trace context of a tool call carried in a {@code coven.ExecuteToolRequest}
 * (conclave_trace.proto): written by the pack host, the context of its {@code conclave.pack_call}
 * span, as a field coven.proto does not declare, so packs that do not know it skip it; read back by
 * the pack SDK, so that the pack's own work joins the call's trace.
 */
public final class ExecuteToolRequestTraces {

  private ExecuteToolRequestTraces() {
  }

  /** Adds {@code context} (W3C header name to value) to {@code request}; nothing when it is empty. */
  public static ExecuteToolRequest.Builder attach(ExecuteToolRequest.Builder request, Map<String, String> context) {
    if (context.isEmpty()) {
      return request;
    }
    return TraceField.attach(request, ExecuteToolRequestTrace.newBuilder().putAllTraceContext(context).build().toByteString());
  }

  /** The trace context {@code request} carries; empty when it has none or it is malformed. */
  public static Map<String, String> of(ExecuteToolRequest request) {
    return TraceField.read(request, ExecuteToolRequestTrace.parser()).map(ExecuteToolRequestTrace::getTraceContextMap).orElse(Map.of());
  }
}
