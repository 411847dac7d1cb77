package dev.conclave.agent.pack;

import dev.conclave.agent.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pack's tool handler gets the trace context the pack host sent with the call (issue 44): as
 * {@link ToolInvocation#traceContext()}, and, with the OpenTelemetry API on the class path, as the
 * current context while {@code handle} runs, so the spans the pack makes (or its instrumented HTTP
 * client) are children of the pack host's {@code conclave.pack_call}.
 */
class PackTraceContextTest extends PackTestBase {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PACK_CALL_SPAN = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PACK_CALL_SPAN + "-01";

  private record Seen(ToolInvocation call, SpanContext current) {
  }

  private final BlockingQueue<Seen> seen = new ArrayBlockingQueue<>(4);

  private Seen call(Map<String, String> traceContext) throws InterruptedException {
    FakePackHost host = host();
    PackTool traced = PackTool.builder("traced").handler(call -> {
      seen.add(new Seen(call, Span.current().getSpanContext()));
      return Future.succeededFuture("{}");
    }).build();
    started(builder(host.endpoint()).tool(traced));
    host.nextStream().call("r1", "traced", "{}", traceContext);
    assertThat(host.nextResult().getOutputJson()).isEqualTo("{}");
    Seen s = seen.poll(10, TimeUnit.SECONDS);
    assertThat(s).as("the handler ran").isNotNull();
    return s;
  }

  @Test
  void theHandlerSeesTheCallsTraceContextAndItIsCurrent() throws Exception {
    Seen s = call(Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=abc"));

    TraceContext trace = s.call().traceContext();
    assertThat(trace.traceparent()).contains(TRACEPARENT);
    assertThat(trace.tracestate()).contains("vendor=abc");
    assertThat(trace.traceId()).contains(TRACE_ID);
    assertThat(trace.headers()).containsExactlyInAnyOrderEntriesOf(Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=abc"));
    assertThat(s.current().getTraceId()).as("the current span while handling").isEqualTo(TRACE_ID);
    assertThat(s.current().getSpanId()).isEqualTo(PACK_CALL_SPAN);
    assertThat(s.current().isRemote()).isTrue();
    assertThat(Span.current().getSpanContext().isValid()).as("not current outside the handler").isFalse();
  }

  @Test
  void aCallWithoutContextHasNoneAndNothingIsCurrent() throws Exception {
    Seen s = call(Map.of());

    assertThat(s.call().traceContext()).isEqualTo(TraceContext.NONE);
    assertThat(s.current().isValid()).isFalse();
  }

  @Test
  void aMalformedContextReachesTheHandlerAsNone() throws Exception {
    Seen s = call(Map.of("traceparent", TRACEPARENT + "\r\nx-injected: 1"));

    assertThat(s.call().traceContext()).isEqualTo(TraceContext.NONE);
    assertThat(s.current().isValid()).isFalse();
  }
}
