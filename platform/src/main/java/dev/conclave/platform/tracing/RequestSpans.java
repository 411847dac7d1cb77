package dev.conclave.platform.tracing;

import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.vertx.core.Vertx;

import java.util.Map;
import java.util.Optional;

/**
 * Conclave's own spans for a request that left its caller's call: each continues the trace stored
 * with the request ({@link TraceContexts}), wherever and whenever it runs. With tracing off, or a
 * request stored without a trace, the work runs as it is, with no span.
 */
public final class RequestSpans {

  /** The span of handing a request to its agent (docs/observability.md). */
  public static final String DISPATCH = "conclave.dispatch";
  public static final String REQUEST_ID = "conclave.request_id";
  public static final String AGENT_ID = "conclave.agent_id";
  public static final String NODE_ID = "conclave.node_id";

  private RequestSpans() {
  }

  /**
   * Runs {@code work} inside a span named {@code name}, a child of the stored {@code traceContext}
   * (so what {@code work} sends carries the trace on), ended when {@code work} returns.
   */
  public static void run(Vertx vertx, String name, SpanKind kind, Optional<String> traceContext, Map<String, String> attributes,
                         Runnable work) {
    NodeTracing tracing = NodeTracing.of(vertx);
    if (!tracing.enabled() || traceContext.isEmpty()) {
      work.run();
      return;
    }
    AttributesBuilder attrs = Attributes.builder();
    attributes.forEach(attrs::put);
    Span span = tracing.tracer().spanBuilder(name).setParent(TraceContexts.parent(traceContext)).setSpanKind(kind)
      .setAllAttributes(attrs.build()).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      work.run();
    } catch (RuntimeException e) {
      span.recordException(e);
      throw e;
    } finally {
      span.end();
    }
  }
}
