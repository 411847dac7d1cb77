package dev.conclave.e2e.observability;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.e2e.cluster.ResilientClient;
import dev.conclave.e2e.support.LocalCluster;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.GetEventsRequest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 44 with real node processes: two nodes running the gateway and the pack host in a cluster,
 * tracing on (OTLP/HTTP to a receiver in the test) and JSON logs; a remote pack (the Java pack SDK,
 * over gRPC) on node-1. A client sends on node-1 with a {@code traceparent}; the agent's stream is on
 * node-2 and it calls the remote pack's tool. One trace holds the client's send (the gateway's call
 * span, the client's span its parent), the ledger write, the request's span on node-2 with the agent's
 * events up to done, its tool call and the pack host's span of it on node-1, and below that the span
 * the pack itself made while running the tool (with its own OpenTelemetry SDK, exporting to the same
 * receiver: the SDK made the pack host's context current in the handler). Then node-2 is killed
 * (SIGKILL) while the agent works on a request: the agent registers again on node-1, and the request
 * queued behind the lost one is served there, in its own client's trace, tool call included. Every line
 * both nodes wrote parses as JSON.
 */
class TracingIT {

  private static final String SECRET = "e2e-tracing-secret-0123456789abcdef0123456789";
  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String HELD_TRACE_ID = "1af7651916cd43dd8448eb211c80319d";
  private static final String FAILOVER_TRACE_ID = "2af7651916cd43dd8448eb211c80319e";
  private static final String CLIENT_SPAN = "b7ad6b7169203331";
  private static final String AGENT = "traced-agent";
  private static final String PACK = "trace-pack";
  private static final String TOOL = "trace_echo";
  /** The span the pack makes itself while it runs the tool. */
  private static final String PACK_OWN_SPAN = "trace-pack.echo";
  private static final int SERVER = 2;

  @Test
  void oneMessageIsOneTraceThroughARemotePackAndAfterItsNodeIsKilledAndEveryLogLineIsJson() throws Exception {
    Vertx vertx = Vertx.vertx();
    GrpcClient grpc = GrpcClient.client(vertx);
    PackClient pack = null;
    ToolCallingAgent agent = null;
    try (OtlpReceiver receiver = new OtlpReceiver(vertx);
         LocalCluster cluster = new LocalCluster(2, "gateway,pack-host", SECRET, 5, Map.of(
           "CONCLAVE_LOG_FORMAT", "json",
           "OTEL_TRACES_EXPORTER", "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.port(),
           "OTEL_BSP_SCHEDULE_DELAY", "100"));
         SdkTracerProvider packTracing = packTracing(receiver)) {
      try {
        cluster.startAll();
        String admin = cluster.adminToken();
        List<SocketAddress> nodes = ResilientClient.local(cluster.grpcPorts());
        Tracer packTracer = packTracing.get(PACK);
        pack = PackClient.builder(vertx).endpoints("127.0.0.1:" + cluster.grpcPort(0)).token(cluster.packToken(PACK)).packId(PACK)
          .version("1.0.0").tool(PackTool.builder(TOOL).description("echoes its text")
            .inputSchema(new JsonObject().put("type", "object").put("properties", new JsonObject().put("text", new JsonObject().put("type", "string"))))
            .handler(call -> {
              // a child of the current context, which the SDK made the pack host's conclave.pack_call
              Span own = packTracer.spanBuilder(PACK_OWN_SPAN).setAttribute("traceparent.seen", call.traceContext().traceparent().orElse(""))
                .startSpan();
              try {
                return Future.succeededFuture(new JsonObject().put("echo", call.input().getString("text", "")).encode());
              } finally {
                own.end();
              }
            }).build())
          .build();
        assertThat(pack.start().await(60, TimeUnit.SECONDS).liveTools()).containsExactly(TOOL);
        agent = new ToolCallingAgent(vertx, grpc, nodes, 1, cluster.agentToken(AGENT), AGENT, TOOL);
        agent.start();
        ToolCallingAgent a = agent;
        await(() -> a.servedBy().equals("node-2"), "the agent registered on node-2, not '" + a.servedBy() + "'");

        // the agent on node-2 calls the remote pack's tool (on node-1)
        String first = send(grpc, nodes.get(0), admin, TRACE_ID, "traced-1");
        await(() -> traced(receiver, TRACE_ID, first), "the request's, the pack host's and the pack's own spans reached the receiver");
        assertThat(terminal(grpc, nodes.get(0), admin, first)).as("the terminal event the client reads").isEqualTo("done");
        assertOneTrace(receiver, TRACE_ID, first, "node-2");

        // node-2 dies while the agent works on a request; the one queued behind it is served on node-1
        agent.holdNext();
        String held = send(grpc, nodes.get(0), admin, HELD_TRACE_ID, "traced-2");
        String queued = send(grpc, nodes.get(0), admin, FAILOVER_TRACE_ID, "traced-3");
        await(() -> a.deliveredOn().containsKey(held), "the agent got the request it is busy with when node-2 dies");
        cluster.node(1).kill();
        await(() -> traced(receiver, FAILOVER_TRACE_ID, queued), "the queued request served on node-1 reached the receiver");
        assertThat(agent.deliveredOn()).as("delivered on").containsEntry(queued, "node-1");
        assertThat(terminal(grpc, nodes.get(0), admin, queued)).isEqualTo("done");
        assertOneTrace(receiver, FAILOVER_TRACE_ID, queued, "node-1");
        agent.close();
      } catch (Throwable t) {
        cluster.dumpLogs(Path.of("target", "tracing-it-logs"));
        throw t;
      }
      for (int i = 0; i < cluster.size(); i++) {
        boolean killed = i == 1;
        if (!killed) {
          cluster.node(i).terminate(Duration.ofSeconds(30));
        }
        String text = cluster.node(i).logText();
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("node-" + (i + 1) + " logged").isNotEmpty();
        // SIGKILL may cut the killed node's last line short; every line it finished is JSON
        int complete = killed && !text.endsWith("\n") ? lines.size() - 1 : lines.size();
        for (String line : lines.subList(0, complete)) {
          JsonObject json = new JsonObject(line);
          assertThat(json.getJsonObject("context").getJsonObject("properties").getString("node")).isEqualTo("node-" + (i + 1));
        }
      }
    } finally {
      if (agent != null) {
        agent.close();
      }
      if (pack != null) {
        pack.close().await(10, TimeUnit.SECONDS);
      }
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** The trace of one message, from the client's send to the agent's done, with the tool call on the pack's node. */
  private static void assertOneTrace(OtlpReceiver receiver, String traceId, String requestId, String agentNode) {
    List<OtlpReceiver.ReceivedSpan> trace = receiver.spans().stream().filter(s -> s.traceId().equals(traceId)).toList();
    String all = trace.stream().map(s -> s.name() + s.attributes() + s.events()).toList().toString();
    assertThat(trace).as("the client's send: the gateway's call span, a child of the client's, in " + all).anySatisfy(s -> {
      assertThat(s.kind()).isEqualTo(SERVER);
      assertThat(s.parentSpanId()).isEqualTo(CLIENT_SPAN);
      assertThat(s.attributes().get("url.path")).isEqualTo("/coven.ClientService/SendMessage");
    });
    assertThat(trace).as("the ledger write (the request's enqueue) in " + all).anySatisfy(s -> {
      assertThat(s.attributes()).containsEntry("db.system", "postgresql");
      assertThat(s.attributes().get("db.query.text")).contains("INSERT INTO gateway.requests");
    });
    OtlpReceiver.ReceivedSpan request = one(trace, s -> s.name().equals("conclave.request"), "the request's span in " + all);
    assertThat(request.attributes()).containsEntry("conclave.node_id", agentNode).containsEntry("conclave.request_id", requestId);
    assertThat(request.events()).as("the agent's events, up to the terminal one").containsSubsequence("agent.text", "agent.done");
    OtlpReceiver.ReceivedSpan call = one(trace, s -> s.name().equals("conclave.tool_call"), "the agent's tool call in " + all);
    assertThat(call.parentSpanId()).isEqualTo(request.spanId());
    assertThat(call.attributes()).containsEntry("conclave.tool_name", TOOL);
    OtlpReceiver.ReceivedSpan packCall = one(trace, s -> s.name().equals("conclave.pack_call"), "the pack host's span in " + all);
    assertThat(packCall.attributes()).containsEntry("conclave.pack_id", PACK).containsEntry("conclave.tool_name", TOOL)
      .containsEntry("conclave.outcome", "ok").containsEntry("conclave.node_id", "node-1").containsEntry("conclave.origin", "agent-stream");
    assertThat(descendsFrom(packCall, call, trace)).as("the pack host's span is below the agent's tool call").isTrue();
    OtlpReceiver.ReceivedSpan own = one(trace, s -> s.name().equals(PACK_OWN_SPAN), "the pack's own span in " + all);
    assertThat(own.parentSpanId()).as("the pack's own span is a child of the pack host's").isEqualTo(packCall.spanId());
    assertThat(own.attributes().get("traceparent.seen")).as("the call's traceContext() in the pack")
      .isEqualTo("00-" + traceId + "-" + packCall.spanId() + "-01");
  }

  /** The pack's own tracing, as a pack author would set it up: its own SDK, exporting over OTLP/HTTP. */
  private static SdkTracerProvider packTracing(OtlpReceiver receiver) {
    return SdkTracerProvider.builder()
      .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), PACK))))
      .addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
        .setEndpoint("http://127.0.0.1:" + receiver.port() + "/v1/traces").build()).setScheduleDelay(Duration.ofMillis(100)).build())
      .build();
  }

  /** Both ends of the message's trace arrived: the request's span, the pack host's span of its tool call and the pack's own. */
  private static boolean traced(OtlpReceiver receiver, String traceId, String requestId) {
    List<OtlpReceiver.ReceivedSpan> spans = receiver.spans();
    return spans.stream().anyMatch(s -> s.name().equals("conclave.request") && requestId.equals(s.attributes().get("conclave.request_id")))
      && spans.stream().anyMatch(s -> s.name().equals("conclave.pack_call") && s.traceId().equals(traceId))
      && spans.stream().anyMatch(s -> s.name().equals(PACK_OWN_SPAN) && s.traceId().equals(traceId));
  }

  private static boolean descendsFrom(OtlpReceiver.ReceivedSpan span, OtlpReceiver.ReceivedSpan ancestor, List<OtlpReceiver.ReceivedSpan> trace) {
    Optional<OtlpReceiver.ReceivedSpan> at = Optional.of(span);
    for (int hops = 0; hops < 10 && at.isPresent(); hops++) {
      String parent = at.get().parentSpanId();
      if (parent.equals(ancestor.spanId())) {
        return true;
      }
      at = trace.stream().filter(s -> s.spanId().equals(parent)).findFirst();
    }
    return false;
  }

  private static OtlpReceiver.ReceivedSpan one(List<OtlpReceiver.ReceivedSpan> trace, java.util.function.Predicate<OtlpReceiver.ReceivedSpan> which,
                                               String what) {
    List<OtlpReceiver.ReceivedSpan> found = trace.stream().filter(which).toList();
    assertThat(found).as(what).hasSize(1);
    return found.get(0);
  }

  private static String send(GrpcClient grpc, SocketAddress node, String admin, String traceId, String key) throws Exception {
    ClientSendMessageResponse sent = grpc.request(node, ClientServiceGrpcClient.SendMessage).compose(req -> {
      req.headers().set("authorization", "Bearer " + admin);
      req.headers().set("traceparent", "00-" + traceId + "-" + CLIENT_SPAN + "-01");
      return req.send(ClientSendMessageRequest.newBuilder().setConversationKey(AGENT).setContent("use the tool").setIdempotencyKey(key).build());
    }).compose(resp -> resp.last()).await(30, TimeUnit.SECONDS);
    return sent.getMessageId();
  }

  /** The kind of the request's terminal event as a client reads the conversation (done, error, cancelled); waits for it. */
  private static String terminal(GrpcClient grpc, SocketAddress node, String admin, String requestId) throws Exception {
    String[] kind = {null};
    await(() -> {
      try {
        List<Event> events = grpc.request(node, ClientServiceGrpcClient.GetEvents).compose(req -> {
          req.headers().set("authorization", "Bearer " + admin);
          return req.send(GetEventsRequest.newBuilder().setConversationKey(AGENT).setLimit(500).build());
        }).compose(resp -> resp.last()).await(10, TimeUnit.SECONDS).getEventsList();
        events.stream().filter(e -> List.of("done", "error", "cancelled").contains(e.getRawTransport()))
          .filter(e -> e.getRawPayloadRef().equals("request/" + requestId)).findFirst().ifPresent(e -> kind[0] = e.getRawTransport());
        return kind[0] != null;
      } catch (Exception e) {
        return false;
      }
    }, "the terminal event of " + requestId);
    return kind[0];
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out: " + what);
      }
      Thread.sleep(100);
    }
  }
}
