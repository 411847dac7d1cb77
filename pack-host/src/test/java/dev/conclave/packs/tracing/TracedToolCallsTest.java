package dev.conclave.packs.tracing;

import dev.conclave.contract.ExecuteToolRequestTraces;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.packs.support.McpClient;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.platform.testing.MemorySpanExporterProvider;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 44: an agent's pack tool calls are spans of the trace of the request it works on, on the pack
 * host too: a remote pack's tool over the agent's stream and over MCP (joined to the request's trace by
 * the agent's MCP token, or to the MCP client's own traceparent), and ask_user, whose wait for a person
 * is a span of its own. The remote pack gets the context of the pack host's span of each call in its
 * {@code ExecuteToolRequest} (conclave_trace.proto, field 1000), so its own work joins the trace; with
 * tracing off it gets the Coven request as it was.
 */
class TracedToolCallsTest {

  private static final String TRACE_ID = "6af7651916cd43dd8448eb211c80319c";
  private static final String MCP_TRACE_ID = "7bf7651916cd43dd8448eb211c80319d";
  private static final String PARENT_ID = "00f067aa0ba902b7";
  private static final String QUESTION = "{\"question\":\"Deploy now?\",\"options\":[{\"label\":\"yes\"},{\"label\":\"no\"}]}";

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
  void toolCallsOverTheStreamAndMcpAndAQuestionAreSpansOfTheRequestsTrace() throws Exception {
    String requestId;
    String questionId;
    ExecuteToolRequest streamSent;
    List<ExecuteToolRequest> mcpSent;
    try (PackHost host = PackHost.start(TestNode.builder().env("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", "60"));
         RawPack pack = host.registerPack(host.packToken("tr-pack"), RawPack.manifest("tr-pack", RawPack.tool("tr_echo", "chat")));
         McpClient mcp = new McpClient(host.gw().vertx(), host.gw().node().httpPort())) {
      Clients admin = host.gw().admin();
      try (PackHost.ToolAgent agent = host.agent("tr-tools", "chat", "ui");
           EventTap tap = admin.stream("tr-tools", "0")) {
        requestId = send(admin, "tr-tools", TRACE_ID);
        assertThat(agent.raw().next().getSendMessage().getRequestId()).isEqualTo(requestId);

        // over the agent's stream, a remote pack's tool
        agent.call("c1", "tr_echo", "{\"text\":\"stream\"}");
        streamSent = pack.nextCall();
        pack.answer(streamSent.getRequestId(), "{\"echo\":\"stream\"}");
        assertThat(agent.result().getOutputJson()).contains("stream");

        // ask_user: a person answers
        agent.call("q1", "ask_user", QUESTION);
        questionId = question(tap).getQuestionId();
        var answered = admin.grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder().setAgentId("tr-tools")
          .setQuestionId(questionId).addSelected("yes").build(), admin.authorization());
        assertThat(answered.response().orElseThrow().getSuccess()).isTrue();
        assertThat(agent.result().getRequestId()).isEqualTo("q1");

        // over MCP with the agent's MCP token: in the trace of the request it works on, then in a client's own
        String token = agent.welcome().getMcpToken();
        String session = mcp.session(token);
        mcpSent = List.of(mcpCall(mcp, pack, token, session, "mcp-plain", Map.of()),
          mcpCall(mcp, pack, token, session, "mcp-traced", Map.of("traceparent", "00-" + MCP_TRACE_ID + "-" + PARENT_ID + "-01")));

        agent.raw().respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        await(() -> named(RequestSpans.REQUEST).stream().anyMatch(s -> requestId.equals(attr(s, RequestSpans.REQUEST_ID))));
      }
    }
    List<SpanData> trace = spans(TRACE_ID);
    SpanData request = only(trace, s -> s.getName().equals(RequestSpans.REQUEST), "the request's span");
    SpanData streamCall = only(trace, s -> s.getName().equals(RequestSpans.TOOL_CALL) && "tr_echo".equals(attr(s, RequestSpans.TOOL_NAME))
      && attr(s, RequestSpans.ORIGIN) == null, "the stream's tool call");
    assertThat(streamCall.getParentSpanId()).isEqualTo(request.getSpanId());

    SpanData remote = only(trace, s -> s.getName().equals(RequestSpans.PACK_CALL) && "tr_echo".equals(attr(s, RequestSpans.TOOL_NAME))
      && "agent-stream".equals(attr(s, RequestSpans.ORIGIN)), "the pack host's span of the remote pack's call");
    assertThat(attr(remote, RequestSpans.PACK_ID)).isEqualTo("tr-pack");
    assertThat(attr(remote, RequestSpans.OUTCOME)).isEqualTo("ok");
    assertThat(descendsFrom(remote, streamCall, trace)).as("below the agent's tool call").isTrue();
    // the pack, built on coven.proto alone (RawPack), reads the call as sent, and its context names the pack host's span
    assertThat(streamSent.getToolName()).isEqualTo("tr_echo");
    assertThat(streamSent.getInputJson()).isEqualTo("{\"text\":\"stream\"}");
    assertThat(sentParent(streamSent)).as("the traceparent the pack got: trace id, parent span id")
      .isEqualTo(List.of(TRACE_ID, remote.getSpanId()));

    SpanData askUser = only(trace, s -> s.getName().equals(RequestSpans.PACK_CALL) && "ask_user".equals(attr(s, RequestSpans.TOOL_NAME)),
      "the pack host's span of ask_user");
    assertThat(attr(askUser, RequestSpans.PACK_ID)).isEqualTo("builtin:ui");
    SpanData wait = only(trace, s -> s.getName().equals(RequestSpans.WAIT_FOR_PERSON), "the wait for a person");
    assertThat(wait.getParentSpanId()).isEqualTo(askUser.getSpanId());
    assertThat(attr(wait, RequestSpans.WAIT_KIND)).isEqualTo("ask_user");
    assertThat(attr(wait, RequestSpans.OUTCOME)).isEqualTo("answered");
    assertThat(attr(wait, "conclave.question_id")).isEqualTo(questionId);

    SpanData mcpCall = only(trace, s -> s.getName().equals(RequestSpans.TOOL_CALL) && "mcp".equals(attr(s, RequestSpans.ORIGIN)),
      "the MCP tool call in the request's trace");
    assertThat(attr(mcpCall, RequestSpans.REQUEST_ID)).isEqualTo(requestId);
    assertThat(attr(mcpCall, RequestSpans.OUTCOME)).isEqualTo("ok");
    SpanData mcpRemote = only(trace, s -> s.getName().equals(RequestSpans.PACK_CALL) && "mcp".equals(attr(s, RequestSpans.ORIGIN)),
      "the pack host's span of the MCP call");
    assertThat(descendsFrom(mcpRemote, mcpCall, trace)).isTrue();
    assertThat(sentParent(mcpSent.get(0))).isEqualTo(List.of(TRACE_ID, mcpRemote.getSpanId()));

    List<SpanData> clientTrace = spans(MCP_TRACE_ID);
    SpanData clientCall = only(clientTrace, s -> s.getName().equals(RequestSpans.TOOL_CALL), "the MCP tool call in the client's trace");
    assertThat(attr(clientCall, RequestSpans.ORIGIN)).isEqualTo("mcp");
    assertThat(clientTrace).as("a child of the client's span (the MCP request's server span, or the call)").anySatisfy(s ->
      assertThat(s.getParentSpanId()).isEqualTo(PARENT_ID));
    assertThat(clientTrace).anySatisfy(s -> {
      assertThat(s.getName()).isEqualTo(RequestSpans.PACK_CALL);
      assertThat(descendsFrom(s, clientCall, clientTrace)).isTrue();
      assertThat(sentParent(mcpSent.get(1))).isEqualTo(List.of(MCP_TRACE_ID, s.getSpanId()));
    });
  }

  @Test
  void withTracingOffThePackGetsTheCovenRequestAndNoContext() {
    System.clearProperty("otel.traces.exporter");
    try (PackHost host = PackHost.start();
         RawPack pack = host.registerPack(host.packToken("plain-pack"), RawPack.manifest("plain-pack", RawPack.tool("plain_echo", "chat")));
         PackHost.ToolAgent agent = host.agent("plain-tools", "chat")) {
      agent.call("c1", "plain_echo", "{\"text\":\"plain\"}");
      ExecuteToolRequest sent = pack.nextCall();
      pack.answer(sent.getRequestId(), "{\"echo\":\"plain\"}");
      assertThat(agent.result().getOutputJson()).contains("plain");

      assertThat(ExecuteToolRequestTraces.of(sent)).isEmpty();
      assertThat(sent.getUnknownFields().asMap()).as("nothing beyond coven.proto's fields: the bytes are the Coven request's").isEmpty();
      assertThat(sent.toByteArray()).isEqualTo(ExecuteToolRequest.newBuilder().setRequestId(sent.getRequestId())
        .setToolName("plain_echo").setInputJson("{\"text\":\"plain\"}").build().toByteArray());
    }
  }

  /** The trace id and parent span id of the traceparent a call carried to the pack. */
  private static List<String> sentParent(ExecuteToolRequest sent) {
    String traceparent = ExecuteToolRequestTraces.of(sent).get("traceparent");
    assertThat(traceparent).as("the call's traceparent in " + sent.getUnknownFields()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    String[] parts = traceparent.split("-");
    return List.of(parts[1], parts[2]);
  }

  private static ExecuteToolRequest mcpCall(McpClient mcp, RawPack pack, String token, String session, String text,
                                            Map<String, String> headers) {
    CompletableFuture<McpClient.Answer> answer = CompletableFuture.supplyAsync(() ->
      mcp.call(token, session, "tr_echo", new JsonObject().put("text", text), headers));
    ExecuteToolRequest call = pack.nextCall();
    pack.answer(call.getRequestId(), new JsonObject().put("echo", text).encode());
    McpClient.Answer done = answer.join();
    assertThat(done.status()).as(done.body()).isEqualTo(200);
    assertThat(done.body()).contains(text);
    return call;
  }

  private static String send(Clients client, String agentId, String traceId) throws Exception {
    var response = client.grpc().open(ClientServiceGrpcClient.SendMessage, client.authorization()).compose(request -> {
      request.headers().set("traceparent", "00-" + traceId + "-" + PARENT_ID + "-01");
      return request.send(ClientSendMessageRequest.newBuilder().setConversationKey(agentId).setContent("use your tools")
        .setIdempotencyKey("tr-1").build());
    }).compose(r -> r.last().map(body -> {
      assertThat(r.status()).isEqualTo(GrpcStatus.OK);
      return body;
    })).await(20, TimeUnit.SECONDS);
    return response.getMessageId();
  }

  private static UserQuestionRequest question(EventTap tap) {
    for (int i = 0; i < 20; i++) {
      ClientStreamEvent e = tap.next();
      if (e.hasUserQuestion()) {
        return e.getUserQuestion();
      }
    }
    throw new AssertionError("no user_question event");
  }

  private static boolean descendsFrom(SpanData span, SpanData ancestor, List<SpanData> trace) {
    Optional<SpanData> at = Optional.of(span);
    for (int hops = 0; hops < 10 && at.isPresent(); hops++) {
      String parent = at.get().getParentSpanId();
      if (parent.equals(ancestor.getSpanId())) {
        return true;
      }
      at = trace.stream().filter(s -> s.getSpanId().equals(parent)).findFirst();
    }
    return false;
  }

  private static SpanData only(List<SpanData> spans, java.util.function.Predicate<SpanData> which, String what) {
    List<SpanData> found = spans.stream().filter(which).toList();
    assertThat(found).as(what + " among " + spans.stream().map(s -> s.getName() + s.getAttributes().asMap()).toList()).hasSize(1);
    return found.get(0);
  }

  private static String attr(SpanData span, String key) {
    return span.getAttributes().asMap().entrySet().stream().filter(e -> e.getKey().getKey().equals(key))
      .map(e -> String.valueOf(e.getValue())).findFirst().orElse(null);
  }

  private static List<SpanData> named(String name) {
    return MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  private static List<SpanData> spans(String traceId) {
    return MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
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
}
