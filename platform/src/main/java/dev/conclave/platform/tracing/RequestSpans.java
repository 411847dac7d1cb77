package dev.conclave.platform.tracing;

import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Conclave's own spans for a request that left its caller's call: each continues the trace stored
 * with the request ({@link TraceContexts}), wherever and whenever it runs. With tracing off, or a
 * request stored without a trace, the work runs as it is, with no span.
 */
public final class RequestSpans {

  /**
   * A request's span on the node that holds its agent's stream: from its dispatch to its end, with
   * the agent's events as span events and its tool calls as child spans (docs/observability.md).
   */
  public static final String REQUEST = "conclave.request";
  /** A pack tool call the agent made while working on a request. */
  public static final String TOOL_CALL = "conclave.tool_call";
  public static final String TOOL_NAME = "conclave.tool_name";
  public static final String REQUEST_ID = "conclave.request_id";
  public static final String AGENT_ID = "conclave.agent_id";
  public static final String NODE_ID = "conclave.node_id";

  private RequestSpans() {
  }

  /**
   * Starts a span named {@code name}, a child of the stored {@code traceContext}; the invalid span
   * (whose methods do nothing) when tracing is off or the request has no trace. The caller ends it.
   */
  public static Span start(Vertx vertx, String name, SpanKind kind, Optional<String> traceContext, Map<String, String> attributes) {
    NodeTracing tracing = NodeTracing.of(vertx);
    if (!tracing.enabled() || traceContext.isEmpty()) {
      return Span.getInvalid();
    }
    AttributesBuilder attrs = Attributes.builder();
    attributes.forEach(attrs::put);
    return tracing.tracer().spanBuilder(name).setParent(TraceContexts.parent(traceContext)).setSpanKind(kind)
      .setAllAttributes(attrs.build()).startSpan();
  }

  /**
   * Runs {@code work} in a child span of {@code parent} named {@code name}, current while
   * {@code work} starts (what it sends over the event bus carries the trace on), ended with the
   * future it returns. Without a valid parent, {@code work} runs with no span.
   */
  public static <T> Future<T> child(Vertx vertx, Span parent, String name, Map<String, String> attributes, Supplier<Future<T>> work) {
    if (!parent.getSpanContext().isValid()) {
      return work.get();
    }
    AttributesBuilder attrs = Attributes.builder();
    attributes.forEach(attrs::put);
    Span span = NodeTracing.of(vertx).tracer().spanBuilder(name).setParent(Context.root().with(parent))
      .setAllAttributes(attrs.build()).startSpan();
    Future<T> result;
    try (Scope ignored = span.makeCurrent()) {
      result = work.get();
    } catch (RuntimeException e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      span.end();
      throw e;
    }
    return result.onComplete(ar -> {
      if (ar.failed()) {
        span.recordException(ar.cause());
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    });
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
