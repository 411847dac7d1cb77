package dev.conclave.agent.internal;

import dev.conclave.agent.TraceContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;

import java.util.Map;
import java.util.function.Supplier;

/**
 * The OpenTelemetry side of {@link CurrentTrace}; loaded only when the API is on the class path. The
 * gateway always sends W3C trace context, so its propagator reads it, whatever propagators the agent
 * configured for its own calls.
 */
final class OpenTelemetryScope {

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

  private OpenTelemetryScope() {
  }

  static <T> T around(TraceContext trace, Supplier<T> work) {
    Context context = W3CTraceContextPropagator.getInstance().extract(Context.root(), trace.headers(), GETTER);
    try (Scope ignored = context.makeCurrent()) {
      return work.get();
    }
  }
}
