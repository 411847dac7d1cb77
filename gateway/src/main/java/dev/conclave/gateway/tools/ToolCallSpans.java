package dev.conclave.gateway.tools;

import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.tracing.NodeTracing;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.vertx.core.Vertx;

import java.util.Map;
import java.util.Optional;

/**
 * The span of one call of a gateway tool, {@link RequestSpans#PACK_CALL} as for every tool that a
 * registry entry names, so a trace shows ask_user the same wherever it runs. Its parent is the
 * current span (the agent's tool call), else the trace context a caller sent (MCP, over the bus).
 */
final class ToolCallSpans {

  private ToolCallSpans() {
  }

  static Span start(Vertx vertx, ToolCall call, String packId, String nodeId, Optional<String> traceContext) {
    if (!NodeTracing.of(vertx).enabled()) {
      return Span.getInvalid();
    }
    Context parent = Span.current().getSpanContext().isValid() ? Context.current() : TraceContexts.parent(traceContext);
    return RequestSpans.startIn(vertx, RequestSpans.PACK_CALL, SpanKind.SERVER, parent, Map.of(
      RequestSpans.TOOL_NAME, call.toolName(),
      RequestSpans.AGENT_ID, call.agentId(),
      RequestSpans.ORIGIN, call.origin(),
      RequestSpans.NODE_ID, nodeId,
      RequestSpans.PACK_ID, packId));
  }

  static void end(Span span, ToolOutcome outcome) {
    span.setAttribute(RequestSpans.OUTCOME, outcome.status().wire());
    if (!outcome.succeeded()) {
      span.setStatus(StatusCode.ERROR, outcome.error());
    }
    span.end();
  }
}
