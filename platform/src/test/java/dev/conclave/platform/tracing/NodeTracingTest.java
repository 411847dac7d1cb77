package dev.conclave.platform.tracing;

import dev.conclave.platform.server.EchoRole;
import ch.qos.logback.classic.Level;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.platform.testing.MemorySpanExporterProvider;
import dev.conclave.platform.testing.TestNode;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import io.vertx.grpc.health.v1.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tracing on a real node (issue 44), configured by the SDK's autoconfiguration ({@code otel.*}
 * system properties here, {@code OTEL_*} variables in production) and exported into memory: a
 * caller's W3C {@code traceparent}, over HTTP and over gRPC, is the parent of the node's server span,
 * and the node's database queries join the trace. Off, nothing is traced.
 */
class NodeTracingTest {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT_ID = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
  private static final ServiceMethod<HealthCheckResponse, HealthCheckRequest> HEALTH_CHECK = ServiceMethod.client(
    ServiceName.create("grpc.health.v1.Health"), "Check", GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(HealthCheckResponse.newBuilder()));

  @AfterEach
  void clear() {
    System.clearProperty("otel.traces.exporter");
    System.clearProperty("otel.bsp.schedule.delay");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @Test
  void offUnlessAnExporterIsNamed() {
    assertThat(NodeTracing.fromEnvironment("n1").enabled()).isFalse();
    System.setProperty("otel.traces.exporter", "none");
    assertThat(NodeTracing.fromEnvironment("n1").enabled()).isFalse();
    System.setProperty("otel.traces.exporter", "memory");
    try (NodeTracing tracing = NodeTracing.fromEnvironment("n1")) {
      assertThat(tracing.enabled()).isTrue();
    }
  }

  @Test
  void aCallersTraceparentIsTheParentOfTheNodesSpans() throws Exception {
    System.setProperty("otel.traces.exporter", "memory");
    System.setProperty("otel.bsp.schedule.delay", "50");
    Vertx vertx = Vertx.vertx();
    try (TestNode node = TestNode.builder().role(new EchoRole()).start()) {
      int status = WebClient.create(vertx).get(node.httpPort(), "127.0.0.1", "/health/ready")
        .putHeader("traceparent", TRACEPARENT).send().await().statusCode();
      assertThat(status).isEqualTo(200);
      try (GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort())) {
        grpc.open(HEALTH_CHECK, null).compose(request -> {
          request.headers().set("traceparent", TRACEPARENT);
          return request.send(HealthCheckRequest.newBuilder().build());
        }).compose(response -> response.last()).await(20, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await();
    }
    // the node's stop flushed its spans
    List<SpanData> spans = MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getTraceId().equals(TRACE_ID)).toList();
    assertThat(spans).as("spans of the caller's trace").isNotEmpty();
    List<SpanData> servers = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER).toList();
    assertThat(servers).extracting(SpanData::getParentSpanId).containsOnly(PARENT_ID);
    // gRPC is served through the HTTP server: its span is the POST of the method's path
    assertThat(servers).extracting(s -> s.getName() + " " + s.getAttributes().asMap())
      .anySatisfy(s -> assertThat(s).startsWith("GET").contains("/health/ready"))
      .anySatisfy(s -> assertThat(s).startsWith("POST").contains("/grpc.health.v1.Health/Check"));
    assertThat(spans).as("the readiness check's query joins the trace").anySatisfy(s -> assertThat(s.getKind()).isEqualTo(SpanKind.CLIENT));
    assertThat(servers.get(0).getResource().getAttributes().asMap().toString()).contains("service.name=conclave");
  }

  /**
   * {@code OTEL_TRACES_EXPORTER=logging-otlp}: each batch of spans is one line of OTLP JSON in the
   * node's log, for operators who collect logs and no traces (and for tests that read a trace from
   * a log).
   */
  @Test
  void loggingOtlpWritesTheSpansAsOtlpJsonInTheLog() throws Exception {
    System.setProperty("otel.traces.exporter", "logging-otlp");
    System.setProperty("otel.bsp.schedule.delay", "50");
    Vertx vertx = Vertx.vertx();
    try (LogCapture log = LogCapture.atLeast(Level.INFO)) {
      try (TestNode node = TestNode.builder().role(new EchoRole()).start()) {
        int status = WebClient.create(vertx).get(node.httpPort(), "127.0.0.1", "/health/ready")
          .putHeader("traceparent", TRACEPARENT).send().await().statusCode();
        assertThat(status).isEqualTo(200);
      } finally {
        vertx.close().await();
      }
      // the node's stop flushed its spans
      assertThat(log.rendered().lines().filter(line -> line.contains("\"scopeSpans\"")))
        .as("OTLP JSON lines in the log").isNotEmpty()
        .anySatisfy(line -> assertThat(line).contains("\"traceId\":\"" + TRACE_ID + "\"").contains("\"parentSpanId\":\"" + PARENT_ID + "\""));
    }
  }
}
