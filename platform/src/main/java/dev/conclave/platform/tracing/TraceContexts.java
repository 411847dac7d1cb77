package dev.conclave.platform.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A trace context as text that outlives the call it came from: the W3C {@code traceparent} of the
 * current span, to store with a request in the ledger, and back to a parent for the spans of whoever
 * handles that request later, on another node or after a restart.
 */
public final class TraceContexts {

  private static final String TRACEPARENT = "traceparent";
  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private TraceContexts() {
  }

  /** The current span's {@code traceparent}; empty outside a span (tracing off included). */
  public static Optional<String> current() {
    if (!Span.current().getSpanContext().isValid()) {
      return Optional.empty();
    }
    Map<String, String> carrier = new HashMap<>();
    W3C.inject(Context.current(), carrier, Map::put);
    return Optional.ofNullable(carrier.get(TRACEPARENT));
  }

  /**
   * The W3C trace context of {@code span} by header name ({@code traceparent}, and {@code tracestate}
   * when it has one), to hand to whoever continues the work (an agent); empty for the invalid span.
   */
  public static Map<String, String> of(Span span) {
    if (!span.getSpanContext().isValid()) {
      return Map.of();
    }
    Map<String, String> carrier = new HashMap<>();
    W3C.inject(Context.root().with(span), carrier, Map::put);
    return Map.copyOf(carrier);
  }

  /** The context whose span {@code traceparent} names, as a parent; the root context when empty or malformed. */
  public static Context parent(Optional<String> traceparent) {
    if (traceparent.isEmpty()) {
      return Context.root();
    }
    return W3C.extract(Context.root(), Map.of(TRACEPARENT, traceparent.get()), GETTER);
  }

  static List<String> fields() {
    return List.copyOf(W3C.fields());
  }
}
