package dev.conclave.gateway.conformance;

import dev.conclave.gateway.sessions.SessionMetrics;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.FileData;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.SessionInit;
import dev.conclave.proto.coven.SessionOrphaned;
import dev.conclave.proto.coven.TokenUsage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.ToolResult;
import dev.conclave.proto.coven.ToolState;
import dev.conclave.proto.coven.ToolStateUpdate;
import dev.conclave.proto.coven.ToolUse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** MessageResponse events: all 13 kinds, checks against the in-flight request, persistence, totals. */
class EventsTest {

  private static GatewayFixture gw;
  private static Clients admin;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    admin = gw.admin();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void everyEventKindIsAcceptedPersistedAndStreamed() {
    try (RawAgent agent = gw.connect("kinds", gw.agentToken("kinds"), "token_usage", "tool_states");
         EventTap tap = admin.stream("kinds", null)) {
      String r1 = admin.sendOk("kinds", "do everything", "kinds-1");
      agent.next();
      agent.respond(r1, MessageResponse.newBuilder().setThinking("hmm"));
      agent.respond(r1, MessageResponse.newBuilder().setText("text"));
      agent.respond(r1, MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("t1").setName("grep").setInputJson("{}")));
      agent.respond(r1, MessageResponse.newBuilder().setToolState(ToolStateUpdate.newBuilder().setId("t1").setState(ToolState.TOOL_STATE_RUNNING)));
      agent.respond(r1, MessageResponse.newBuilder().setToolResult(ToolResult.newBuilder().setId("t1").setOutput("found")));
      agent.respond(r1, MessageResponse.newBuilder().setToolState(ToolStateUpdate.newBuilder().setId("t1").setState(ToolState.TOOL_STATE_COMPLETED)));
      agent.respond(r1, MessageResponse.newBuilder().setFile(FileData.newBuilder().setFilename("a.txt").setMimeType("text/plain")
        .setData(com.google.protobuf.ByteString.copyFromUtf8("abc"))));
      agent.respond(r1, MessageResponse.newBuilder().setSessionInit(SessionInit.newBuilder().setSessionId("s-1")));
      agent.respond(r1, MessageResponse.newBuilder().setSessionOrphaned(SessionOrphaned.newBuilder().setReason("expired")));
      agent.respond(r1, MessageResponse.newBuilder().setUsage(TokenUsage.newBuilder().setInputTokens(10).setOutputTokens(5).setThinkingTokens(2)));
      agent.respond(r1, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("t2").setName("rm").setInputJson("{}")));
      agent.respond(r1, MessageResponse.newBuilder().setDone(Done.newBuilder().setFullResponse("all done")));

      List<ClientStreamEvent> live = tap.until(EventTap::terminal);
      assertThat(live).extracting(e -> e.getPayloadCase().name()).containsExactly(
        "EVENT", "THINKING", "TEXT", "TOOL_USE", "TOOL_STATE", "TOOL_RESULT", "TOOL_STATE", "EVENT", "EVENT", "EVENT", "USAGE", "TOOL_APPROVAL", "DONE");
      assertThat(live.get(11).getToolApproval().getRequestId()).isEqualTo(r1);
      assertThat(live.get(11).getToolApproval().getAgentId()).isEqualTo("kinds");
      assertThat(live.get(12).getDone().getFullResponse()).isEqualTo("all done");

      // the same, from the ledger: text chunks included, ids consecutive
      var history = admin.grpc().unary(ClientServiceGrpcClient.GetEvents,
        GetEventsRequest.newBuilder().setConversationKey("kinds").setLimit(100).build(), admin.authorization()).response().orElseThrow();
      List<Event> events = history.getEventsList();
      assertThat(events).hasSize(13);
      assertThat(events).extracting(Event::getId).containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13");
      assertThat(events).extracting(Event::getRawTransport).containsExactly("inbound", "thinking", "text", "tool_use", "tool_state",
        "tool_result", "tool_state", "file", "session_init", "session_orphaned", "usage", "tool_approval", "done");
      assertThat(events.get(0).getDirection()).isEqualTo("inbound_to_agent");
      assertThat(events.get(2).getText()).isEqualTo("text");
      assertThat(events).allSatisfy(e -> assertThat(e.getRawPayloadRef()).isEqualTo("request/" + r1));
    }
  }

  @Test
  void cancelledAndErrorAreTerminalErrorsForClients() {
    try (RawAgent agent = gw.connect("ends", gw.agentToken("ends")); EventTap tap = admin.stream("ends", null)) {
      String r1 = admin.sendOk("ends", "a", "ends-1");
      String r2 = admin.sendOk("ends", "b", "ends-2");
      agent.next();
      agent.respond(r1, MessageResponse.newBuilder().setError("boom"));
      agent.next();
      agent.respond(r2, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason("user_requested")));
      List<ClientStreamEvent> events = tap.until(e -> e.hasError() && e.getError().getMessage().startsWith("cancelled"));
      assertThat(events.stream().filter(ClientStreamEvent::hasError).map(e -> e.getError().getMessage()).toList())
        .containsExactly("boom", "cancelled: user_requested");
    }
  }

  @Test
  void eventsForUnknownFinishedOrForeignRequestsAreDroppedAndCounted() {
    try (RawAgent a = gw.connect("drop-a", gw.agentToken("drop-a")); RawAgent b = gw.connect("drop-b", gw.agentToken("drop-b"));
         EventTap tapA = admin.stream("drop-a", null)) {
      double unknownBefore = dropped(SessionMetrics.DropReason.UNKNOWN_REQUEST);
      double finishedBefore = dropped(SessionMetrics.DropReason.FINISHED_REQUEST);
      String ra = admin.sendOk("drop-a", "for a", "drop-a-1");
      a.next();
      // agent b answers a's request: not b's request, so dropped
      b.respond(ra, MessageResponse.newBuilder().setText("hijack"));
      b.respond(ra, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      // an id nobody issued
      a.respond("00000000-0000-0000-0000-000000000000", MessageResponse.newBuilder().setText("ghost"));
      a.respond(ra, MessageResponse.newBuilder().setText("real"));
      a.respond(ra, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      // after its terminal
      a.respond(ra, MessageResponse.newBuilder().setText("late"));

      List<ClientStreamEvent> events = tapA.until(EventTap::terminal);
      assertThat(events).extracting(e -> e.hasText() ? e.getText().getContent() : e.getPayloadCase().name())
        .containsExactly("EVENT", "real", "DONE");
      assertThat(tapA.poll(300)).isNull();
      assertThat(dropped(SessionMetrics.DropReason.UNKNOWN_REQUEST) - unknownBefore).isGreaterThanOrEqualTo(3);
      awaitMetric(SessionMetrics.DropReason.FINISHED_REQUEST, finishedBefore + 1);
    }
  }

  @Test
  void usageAndToolStatesAreRecordedWithTotalsPerConversationAndAgent() throws InterruptedException {
    try (RawAgent agent = gw.connect("meter", gw.agentToken("meter"), "token_usage", "tool_states")) {
      for (int i = 0; i < 2; i++) {
        String r = admin.sendOk("meter", "go", "meter-" + i);
        agent.next();
        agent.respond(r, MessageResponse.newBuilder().setUsage(TokenUsage.newBuilder().setInputTokens(100).setOutputTokens(20)
          .setCacheReadTokens(3).setCacheWriteTokens(4).setThinkingTokens(5)));
        agent.respond(r, MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("tool-" + i).setName("ls")));
        agent.respond(r, MessageResponse.newBuilder().setToolState(ToolStateUpdate.newBuilder().setId("tool-" + i)
          .setState(ToolState.TOOL_STATE_FAILED).setDetail("permission denied")));
        agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      }
      WebClient web = WebClient.create(gw.vertx());
      try {
        // the second request's events are stored after its done reached the agent's stream: wait for them
        JsonObject byAgent = get(web, "/api/v1/gateway/usage/agents/meter");
        for (long until = System.currentTimeMillis() + 10_000; byAgent.getLong("requests", 0L) < 2 && System.currentTimeMillis() < until; ) {
          Thread.sleep(50);
          byAgent = get(web, "/api/v1/gateway/usage/agents/meter");
        }
        assertThat(byAgent.getLong("inputTokens")).isEqualTo(200);
        assertThat(byAgent.getLong("outputTokens")).isEqualTo(40);
        assertThat(byAgent.getLong("cacheReadTokens")).isEqualTo(6);
        assertThat(byAgent.getLong("cacheWriteTokens")).isEqualTo(8);
        assertThat(byAgent.getLong("thinkingTokens")).isEqualTo(10);
        assertThat(byAgent.getLong("requests")).isEqualTo(2);
        assertThat(get(web, "/api/v1/gateway/usage/conversations/meter").getLong("inputTokens")).isEqualTo(200);

        String last = admin.sendOk("meter", "status?", "meter-last");
        agent.next();
        agent.respond(last, MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("x").setName("cat")));
        agent.respond(last, MessageResponse.newBuilder().setToolState(ToolStateUpdate.newBuilder().setId("x").setState(ToolState.TOOL_STATE_RUNNING)));
        agent.respond(last, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        JsonObject request = awaitState(web, last, "done");
        assertThat(request.getJsonArray("tools").getJsonObject(0).getString("name")).isEqualTo("cat");
        assertThat(request.getJsonArray("tools").getJsonObject(0).getString("state")).isEqualTo("TOOL_STATE_RUNNING");
      } finally {
        web.close();
      }
    }
  }

  private static JsonObject awaitState(WebClient web, String requestId, String state) {
    for (int i = 0; i < 50; i++) {
      JsonObject r = get(web, "/api/v1/gateway/requests/" + requestId);
      if (state.equals(r.getString("state"))) {
        return r;
      }
      sleep(100);
    }
    throw new AssertionError("request " + requestId + " never reached " + state);
  }

  static JsonObject get(WebClient web, String path) {
    var response = GatewayFixture.await(web.get(gw.node().httpPort(), "127.0.0.1", path)
      .putHeader("authorization", admin.authorization()).send());
    assertThat(response.statusCode()).as(path + " " + response.bodyAsString()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private static double dropped(SessionMetrics.DropReason reason) {
    var c = gw.node().runtime().context().metrics().find(MetricNames.GATEWAY_EVENTS_DROPPED)
      .tag("reason", reason.name().toLowerCase()).counter();
    return c == null ? 0 : c.count();
  }

  private static void awaitMetric(SessionMetrics.DropReason reason, double atLeast) {
    for (int i = 0; i < 50 && dropped(reason) < atLeast; i++) {
      sleep(100);
    }
    assertThat(dropped(reason)).isGreaterThanOrEqualTo(atLeast);
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
