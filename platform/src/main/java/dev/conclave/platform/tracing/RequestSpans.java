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
  /**
   * A tool call as the pack host ran it: a built-in here, or a remote pack's, from the send on its
   * stream until its result (docs/observability.md).
   */
  public static final String PACK_CALL = "conclave.pack_call";
  /** Time waiting for a person: an ask_user question or a tool approval, until the answer or the end of the wait. */
  public static final String WAIT_FOR_PERSON = "conclave.wait_for_person";
  public static final String PACK_ID = "conclave.pack_id";
  /** Where a tool call came from: {@code agent-stream} or {@code mcp}. */
  public static final String ORIGIN = "conclave.origin";
  /** How a tool call or a wait for a person ended: a tool outcome's status, or {@code answered}, {@code approved}, … */
  public static final String OUTCOME = "conclave.outcome";
  /** What a person was asked for: {@code ask_user} or {@code approval}. */
  public static final String WAIT_KIND = "conclave.wait_kind";

  private RequestSpans() {
  }

  /**
   * Starts a span named {@code name}, a child of {@code parent}'s span; the invalid span (whose
   * methods do nothing) when tracing is off or {@code parent} holds no valid span: a call outside any
   * trace gets none of its own. The caller ends it.
   */
  public static Span startIn(Vertx vertx, String name, SpanKind kind, Context parent, Map<String, String> attributes) {
    NodeTracing tracing = NodeTracing.of(vertx);
    if (!tracing.enabled() || !Span.fromContext(parent).getSpanContext().isValid()) {
      return Span.getInvalid();
    }
    AttributesBuilder attrs = Attributes.builder();
    attributes.forEach(attrs::put);
    return tracing.tracer().spanBuilder(name).setParent(parent).setSpanKind(kind).setAllAttributes(attrs.build()).startSpan();
  }

  /**
   * Starts the wait for a person ({@link #WAIT_FOR_PERSON}, {@code kind} {@code ask_user} or
   * {@code approval}), a child of {@code parent}'s span; end it with {@link #endWait}.
   */
  public static Span startWait(Vertx vertx, String kind, Context parent, Map<String, String> attributes) {
    Map<String, String> all = new java.util.HashMap<>(attributes);
    all.put(WAIT_KIND, kind);
    return startIn(vertx, WAIT_FOR_PERSON, SpanKind.INTERNAL, parent, all);
  }

  /** Ends a wait for a person with how it ended ({@code answered}, {@code approved}, {@code denied}, {@code expired}, …). */
  public static void endWait(Span wait, String outcome) {
    wait.setAttribute(OUTCOME, outcome);
    wait.end();
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
