package dev.conclave.gateway.tracing;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.MemorySpanExporterProvider;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One trace per message, durably (issue 44): the client's {@code traceparent} on SendMessage is
 * stored with the request in the ledger, and the request's dispatch to its agent continues that
 * trace, also when it happens on a node started after the one that took the message.
 */
class TracedDispatchTest {

  private static final String PARENT_ID = "00f067aa0ba902b7";

  @BeforeEach
  void traceIntoMemory() {
    System.setProperty("otel.traces.exporter", "memory");
    System.setProperty("otel.bsp.schedule.delay", "50");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @AfterEach
  void clear() {
    System.clearProperty("otel.traces.exporter");
    System.clearProperty("otel.bsp.schedule.delay");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @Test
  void theDispatchToAConnectedAgentContinuesTheClientsTrace() {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    String requestId;
    try (GatewayFixture gw = GatewayFixture.start()) {
      Principal owner = gw.newMember("tr-owner");
      Clients client = gw.clients(gw.token(owner));
      try (RawAgent agent = gw.connect("tr-agent", gw.agentTokenOwnedBy("tr-agent", owner.id()))) {
        requestId = send(client, "tr-agent", traceId, "k-1");
        ServerMessage work = agent.next();
        assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
        agent.respond(requestId, MessageResponse.newBuilder().setThinking("hmm"));
        // a person approves a tool: the wait shows between the two events
        agent.respond(requestId, MessageResponse.newBuilder().setToolApprovalRequest(
          ToolApprovalRequest.newBuilder().setId("ap-1").setName("rm").setInputJson("{}")));
        var approved = client.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder()
          .setAgentId("tr-agent").setToolId("ap-1").setApproved(true).build(), client.authorization());
        assertThat(approved.status()).as(approved.message()).isEqualTo(GrpcStatus.OK);
        assertThat(agent.next().getToolApproval().getId()).isEqualTo("ap-1");
        // a pack tool call while working: no pack host runs here, so it fails, in its span
        agent.send(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder().setRequestId("call-1")
          .setToolName("note_get").setInputJson("{}")).build());
        assertThat(agent.next().getPackToolResult().getRequestId()).isEqualTo("call-1");
        agent.respond(requestId, MessageResponse.newBuilder().setText("hello back"));
        agent.respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        await(() -> requestSpanEnded(requestId));
      }
    }
    SpanData dispatch = dispatchOf(requestId);
    assertThat(dispatch.getTraceId()).isEqualTo(traceId);
    assertThat(dispatch.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(dispatch.getEvents()).extracting(EventData::getName).containsExactly("agent.thinking", "agent.tool_approval_request", "approval.decided", "agent.text", "agent.done");
    SpanData tool = spans(traceId).stream().filter(s -> s.getName().equals(RequestSpans.TOOL_CALL)).findFirst().orElseThrow();
    assertThat(tool.getParentSpanId()).as("the tool call is a child of the request's span").isEqualTo(dispatch.getSpanId());
    assertThat(tool.getAttributes().asMap().toString()).contains("note_get");
    List<SpanData> waits = spans(traceId).stream().filter(s -> s.getName().equals(RequestSpans.WAIT_FOR_PERSON)).toList();
    assertThat(waits).as("the wait for the person's decision is a span of its own").hasSize(1);
    SpanData wait = waits.get(0);
    assertThat(wait.getParentSpanId()).isEqualTo(dispatch.getSpanId());
    assertThat(wait.getAttributes().asMap().toString()).contains(RequestSpans.WAIT_KIND + "=approval", RequestSpans.OUTCOME + "=approved",
      "conclave.tool_id=ap-1");
    assertThat(wait.getEndEpochNanos()).isLessThan(dispatch.getEndEpochNanos());
    SpanData server = spans(traceId).stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
    assertThat(server.getParentSpanId()).as("the client's span is the parent of the gateway's").isEqualTo(PARENT_ID);
  }

  @Test
  void aRequestQueuedBeforeARestartIsDispatchedInItsTrace() throws Exception {
    String traceId = "5cf92f3577b34da6a3ce929d0e0e4737";
    PgUrl database = TestDatabase.freshDatabase();
    // the same database and data dir (its signing key): the node restarted
    java.nio.file.Path data = java.nio.file.Files.createTempDirectory("traced-restart");
    String requestId;
    Principal owner;
    String agentToken;
    try (GatewayFixture first = GatewayFixture.start(TestNode.builder().database(database).dataDir(data))) {
      owner = first.newMember("tq-owner");
      agentToken = first.agentTokenOwnedBy("tq-agent", owner.id());
      first.connect("tq-agent", agentToken).close();
      // the agent is gone: the message waits in the ledger
      requestId = send(first.clients(first.token(owner)), "tq-agent", traceId, "k-2");
    }
    MemorySpanExporterProvider.SPANS.reset();
    try (GatewayFixture second = GatewayFixture.start(TestNode.builder().database(database).dataDir(data));
         RawAgent agent = second.connect("tq-agent", agentToken)) {
      ServerMessage work = agent.next();
      assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
      agent.respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      await(() -> requestSpanEnded(requestId));
    }
    SpanData dispatch = dispatchOf(requestId);
    assertThat(dispatch.getTraceId()).as("the dispatch on the restarted node, from the ledger").isEqualTo(traceId);
    assertThat(dispatch.getEvents()).extracting(EventData::getName).containsExactly("agent.done");
    assertThat(spans(traceId)).as("the second node had no call in this trace but the dispatch").allSatisfy(s ->
      assertThat(s.getKind()).isNotEqualTo(SpanKind.SERVER));
  }

  private static String send(Clients client, String conversation, String traceId, String key) {
    try {
      var response = client.grpc().open(ClientServiceGrpcClient.SendMessage, client.authorization()).compose(request -> {
        request.headers().set("traceparent", "00-" + traceId + "-" + PARENT_ID + "-01");
        return request.send(ClientSendMessageRequest.newBuilder().setConversationKey(conversation).setContent("hello")
          .setIdempotencyKey(key).build());
      }).compose(r -> r.last().map(body -> {
        assertThat(r.status()).isEqualTo(GrpcStatus.OK);
        return body;
      })).await(20, TimeUnit.SECONDS);
      return response.getMessageId();
    } catch (Exception e) {
      throw new AssertionError("SendMessage failed", e);
    }
  }

  /** The request span of {@code requestId} (begun at its dispatch): the node's stop flushed it. */
  private static SpanData dispatchOf(String requestId) {
    List<SpanData> dispatches = MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getName().equals(RequestSpans.REQUEST))
      .filter(s -> requestId.equals(s.getAttributes().asMap().entrySet().stream()
        .filter(e -> e.getKey().getKey().equals(RequestSpans.REQUEST_ID)).map(e -> String.valueOf(e.getValue())).findFirst().orElse(null)))
      .toList();
    assertThat(dispatches).as("request spans of request " + requestId).hasSize(1);
    return dispatches.get(0);
  }

  private static boolean requestSpanEnded(String requestId) {
    return MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream().anyMatch(s -> s.getName().equals(RequestSpans.REQUEST)
      && s.getAttributes().asMap().toString().contains(requestId));
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the request's span did not end");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static List<SpanData> spans(String traceId) {
    return MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
  }
}
