package dev.conclave.packs.dispatch;

import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
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
 * The pack host's span of one tool call ({@link RequestSpans#PACK_CALL}): from its arrival here to
 * its outcome, a remote pack's round trip on its stream included. Its parent is the current span when
 * Vert.x's event-bus tracing delivered the caller's context, else the trace context the caller put in
 * the message itself (the caller's span is current only before the lookups that precede the send, so
 * the event bus alone does not always carry it). A call outside any trace gets no span.
 */
final class PackCallSpans {

  private PackCallSpans() {
  }

  static Span start(Vertx vertx, ToolCall call, String nodeId, Optional<String> traceContext) {
    if (!dev.conclave.platform.tracing.NodeTracing.of(vertx).enabled()) {
      return Span.getInvalid();
    }
    Context parent = Span.current().getSpanContext().isValid() ? Context.current() : TraceContexts.parent(traceContext);
    return RequestSpans.startIn(vertx, RequestSpans.PACK_CALL, SpanKind.SERVER, parent, Map.of(
      RequestSpans.TOOL_NAME, call.toolName(),
      RequestSpans.AGENT_ID, call.agentId(),
      RequestSpans.ORIGIN, call.origin(),
      RequestSpans.NODE_ID, nodeId));
  }

  /** Ends the span with the call's outcome: its status as {@code conclave.outcome}, ERROR with the message when it failed. */
  static void end(Span span, ToolOutcome outcome) {
    span.setAttribute(RequestSpans.OUTCOME, outcome.status().wire());
    if (!outcome.succeeded()) {
      span.setStatus(StatusCode.ERROR, outcome.error());
    }
    span.end();
  }
}
