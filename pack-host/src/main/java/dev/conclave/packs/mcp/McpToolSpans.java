package dev.conclave.packs.mcp;

import dev.conclave.packs.builtin.GatewayCalls;
import dev.conclave.platform.packs.GatewayToolOps;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.tracing.NodeTracing;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * An MCP tool call's span ({@link RequestSpans#TOOL_CALL}, {@code conclave.origin=mcp}), like a tool
 * call over the agent's stream. Its parent: the MCP client's own {@code traceparent} when it sent one
 * (Vert.x's HTTP tracing makes it the parent of the request's server span); otherwise the
 * trace of the agent's request in flight, stored with it in the ledger (asked of the gateway; MCP
 * carries no request id); with neither, none (the MCP request's server span, when Vert.x still has it
 * current here). Off, nothing is asked.
 */
public final class McpToolSpans {

  static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(5);

  private final Vertx vertx;
  private final GatewayCalls gateway;

  public McpToolSpans(Vertx vertx, GatewayCalls gateway) {
    this.vertx = vertx;
    this.gateway = gateway;
  }

  Future<ToolOutcome> traced(String agentId, String toolName, Optional<String> clientTraceparent, Supplier<Future<ToolOutcome>> call) {
    if (!NodeTracing.of(vertx).enabled()) {
      return call.get();
    }
    Context current = Context.current();
    Map<String, String> attributes = new HashMap<>(Map.of(RequestSpans.TOOL_NAME, toolName, RequestSpans.AGENT_ID, agentId,
      RequestSpans.ORIGIN, dev.conclave.platform.packs.ToolCall.ORIGIN_MCP));
    Optional<Context> client = clientTraceparent.map(t -> TraceContexts.parent(Optional.of(t)))
      .filter(c -> Span.fromContext(c).getSpanContext().isValid())
      // the request's server span when Vert.x still has it current here (a child of the client's), else the client's
      .map(c -> Span.fromContext(current).getSpanContext().getTraceId().equals(Span.fromContext(c).getSpanContext().getTraceId()) ? current : c);
    Future<Context> parent = client.isPresent() ? Future.succeededFuture(client.get())
      : gateway.request(GatewayToolOps.request(GatewayToolOps.REQUEST_TRACE).put("agentId", agentId), LOOKUP_TIMEOUT)
        .map(reply -> inFlight(reply, attributes).orElse(current))
        .otherwise(current);
    return parent.compose(p -> {
      Span span = RequestSpans.startIn(vertx, RequestSpans.TOOL_CALL, SpanKind.INTERNAL, p, attributes);
      Future<ToolOutcome> outcome;
      // current while the call is sent: the pack host's span is its child
      try (Scope ignored = span.makeCurrent()) {
        outcome = call.get();
      }
      return outcome.onComplete(ar -> {
        if (ar.succeeded()) {
          span.setAttribute(RequestSpans.OUTCOME, ar.result().status().wire());
          if (!ar.result().succeeded()) {
            span.setStatus(StatusCode.ERROR, ar.result().error());
          }
        } else {
          span.recordException(ar.cause());
          span.setStatus(StatusCode.ERROR);
        }
        span.end();
      });
    });
  }

  private static Optional<Context> inFlight(JsonObject reply, Map<String, String> attributes) {
    Optional<String> trace = Optional.ofNullable(reply.getString("traceContext"));
    Optional.ofNullable(reply.getString("requestId")).ifPresent(id -> attributes.put(RequestSpans.REQUEST_ID, id));
    return trace.map(t -> TraceContexts.parent(Optional.of(t))).filter(c -> Span.fromContext(c).getSpanContext().isValid());
  }
}
