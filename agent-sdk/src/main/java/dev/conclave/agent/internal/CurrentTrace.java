package dev.conclave.agent.internal;

import dev.conclave.agent.TraceContext;

import java.util.function.Supplier;

/**
 * Makes a request's trace context OpenTelemetry's current context while the handler is called, when
 * the OpenTelemetry API is on the agent's class path (the SDK's dependency on it is optional): spans
 * the agent makes, and an instrumented HTTP client, then join the request's trace. Without the API
 * no class of it is loaded. Only the handler's synchronous call sees it current; work it continues
 * later on another thread or callback takes {@code message.traceContext()} (or the OpenTelemetry
 * {@code Context.current()} it captured) along. The pack SDK does the same around a tool handler,
 * with the context of the pack host's span of the call.
 */
public final class CurrentTrace {

  private static final boolean OPEN_TELEMETRY = present("io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator");

  private CurrentTrace() {
  }

  /** Runs {@code work} with {@code trace} as OpenTelemetry's current context, when there is both. */
  public static <T> T around(TraceContext trace, Supplier<T> work) {
    if (!OPEN_TELEMETRY || !trace.isPresent()) {
      return work.get();
    }
    return OpenTelemetryScope.around(trace, work);
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, CurrentTrace.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
