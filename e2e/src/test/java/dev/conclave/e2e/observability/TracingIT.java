package dev.conclave.e2e.observability;

import dev.conclave.e2e.cluster.ResilientAgent;
import dev.conclave.e2e.cluster.ResilientClient;
import dev.conclave.e2e.support.LocalCluster;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 44 with real node processes: two gateway nodes in a cluster, tracing on (OTLP/HTTP to a
 * receiver in the test) and JSON logs. A client sends on the first node with a {@code traceparent};
 * the agent's stream is on the second. One trace holds the gateway's call span (the client's span its
 * parent) and the request's span on the agent's node, with the agent's events; every line both nodes
 * wrote parses as JSON.
 */
class TracingIT {

  private static final String SECRET = "e2e-tracing-secret-0123456789abcdef0123456789";
  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String CLIENT_SPAN = "b7ad6b7169203331";
  private static final int SERVER = 2;

  @Test
  void oneMessageIsOneTraceAcrossTwoNodesAndEveryLogLineIsJson() throws Exception {
    Vertx vertx = Vertx.vertx();
    GrpcClient grpc = GrpcClient.client(vertx);
    try (OtlpReceiver receiver = new OtlpReceiver(vertx);
         LocalCluster cluster = new LocalCluster(2, "gateway", SECRET, 5, Map.of(
           "CONCLAVE_LOG_FORMAT", "json",
           "OTEL_TRACES_EXPORTER", "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.port(),
           "OTEL_BSP_SCHEDULE_DELAY", "100"))) {
      try {
        cluster.startAll();
        String admin = cluster.adminToken();
        ResilientAgent agent = ResilientAgent.at(vertx, grpc, ResilientClient.local(cluster.grpcPorts()), 1,
          cluster.agentToken("traced-agent"), "traced-agent", 0);
        agent.start();
        await(() -> agent.servedBy().equals("node-2"), "the agent registered on node-2, not " + agent.servedBy());

        ClientSendMessageResponse sent = grpc.request(ResilientClient.local(cluster.grpcPorts()).get(0), ClientServiceGrpcClient.SendMessage)
          .compose(req -> {
            req.headers().set("authorization", "Bearer " + admin);
            req.headers().set("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01");
            return req.send(ClientSendMessageRequest.newBuilder().setConversationKey("traced-agent").setContent("hello")
              .setIdempotencyKey("traced-1").build());
          }).compose(resp -> resp.last()).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        String requestId = sent.getMessageId();

        await(() -> receiver.spans().stream().anyMatch(s -> s.name().equals("conclave.request")
          && requestId.equals(s.attributes().get("conclave.request_id"))), "the request's span reached the receiver");
        List<OtlpReceiver.ReceivedSpan> trace = receiver.spans().stream().filter(s -> s.traceId().equals(TRACE_ID)).toList();
        assertThat(trace).as("the gateway's call span, a child of the client's")
          .anySatisfy(s -> {
            assertThat(s.kind()).isEqualTo(SERVER);
            assertThat(s.parentSpanId()).isEqualTo(CLIENT_SPAN);
          });
        assertThat(trace).as("the request's span on the agent's node, in the client's trace")
          .anySatisfy(s -> {
            assertThat(s.name()).isEqualTo("conclave.request");
            assertThat(s.attributes()).containsEntry("conclave.node_id", "node-2").containsEntry("conclave.request_id", requestId);
          });
        agent.stop();
      } catch (Throwable t) {
        cluster.dumpLogs(Path.of("target", "tracing-it-logs"));
        throw t;
      }
      for (int i = 0; i < cluster.size(); i++) {
        cluster.node(i).terminate(Duration.ofSeconds(30));
        List<String> lines = cluster.node(i).logText().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("node-" + (i + 1) + " logged").isNotEmpty();
        for (String line : lines) {
          JsonObject json = new JsonObject(line);
          assertThat(json.getJsonObject("context").getJsonObject("properties").getString("node")).isEqualTo("node-" + (i + 1));
        }
      }
    } finally {
      grpc.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out: " + what);
      }
      Thread.sleep(100);
    }
  }
}
