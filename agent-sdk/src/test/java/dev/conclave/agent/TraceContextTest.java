package dev.conclave.agent;

import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.contract.SendMessageTraces;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ServerMessage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SDK hands the handler the trace context of the message it handles (issue 44): as
 * {@link IncomingMessage#traceContext()}, and, with the OpenTelemetry API on the class path, as the
 * current context while {@code handle} runs, so spans the agent makes (or its instrumented HTTP
 * client) join the request's trace.
 */
class TraceContextTest extends ClientTestBase {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

  private record Seen(IncomingMessage message, SpanContext current) {
  }

  private Seen handle(Map<String, String> context) {
    FakeGateway gw = gateway("node-a");
    AtomicReference<Seen> seen = new AtomicReference<>();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      seen.set(new Seen(msg, Span.current().getSpanContext()));
      return out.done();
    }));
    AgentConn conn = gw.nextConnection();
    conn.send(ServerMessage.newBuilder().setSendMessage(SendMessageTraces.attach(SendMessage.newBuilder()
      .setRequestId("r1").setThreadId("t1").setSender("alice").setContent("hi"), context)).build());
    conn.responsesUntilTerminal();
    return seen.get();
  }

  @Test
  void theHandlerSeesTheRequestsTraceContextAndItIsCurrent() {
    Seen seen = handle(Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=abc"));

    TraceContext trace = seen.message().traceContext();
    assertThat(trace.traceparent()).contains(TRACEPARENT);
    assertThat(trace.tracestate()).contains("vendor=abc");
    assertThat(trace.traceId()).contains(TRACE_ID);
    assertThat(trace.environment()).containsExactlyInAnyOrderEntriesOf(Map.of("TRACEPARENT", TRACEPARENT, "TRACESTATE", "vendor=abc"));
    assertThat(seen.current().getTraceId()).as("the current span while handling").isEqualTo(TRACE_ID);
    assertThat(seen.current().getSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(seen.current().isRemote()).isTrue();
    assertThat(Span.current().getSpanContext().isValid()).as("not current outside the handler").isFalse();
  }

  @Test
  void aMessageWithoutContextHasNoneAndNothingIsCurrent() {
    Seen seen = handle(Map.of());

    assertThat(seen.message().traceContext()).isEqualTo(TraceContext.NONE);
    assertThat(seen.message().traceContext().headers()).isEmpty();
    assertThat(seen.current().isValid()).isFalse();
  }

  @Test
  void aMalformedContextIsDropped() {
    // it would end up in HTTP headers and environment variables: only the W3C form passes
    assertThat(TraceContext.of(Map.of("traceparent", TRACEPARENT + "\r\nx-injected: 1"))).isEqualTo(TraceContext.NONE);
    assertThat(TraceContext.of(Map.of("traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01")))
      .isEqualTo(TraceContext.NONE);
    assertThat(TraceContext.of(Map.of("traceparent", "ff-" + TRACE_ID + "-00f067aa0ba902b7-01"))).isEqualTo(TraceContext.NONE);
    assertThat(TraceContext.of(Map.of("tracestate", "a=b"))).as("a tracestate alone").isEqualTo(TraceContext.NONE);
    TraceContext badState = TraceContext.of(Map.of("traceparent", TRACEPARENT, "tracestate", "a=b\nc"));
    assertThat(badState.traceparent()).contains(TRACEPARENT);
    assertThat(badState.tracestate()).isEqualTo(Optional.empty());
  }
}
