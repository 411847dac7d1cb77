package dev.conclave.gateway.conformance;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.sessions.SessionMetrics;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ApproveToolResponse;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.InjectionAck;
import dev.conclave.proto.coven.InjectionPriority;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Feature negotiation (injection, cancellation), tool approval, pack tools, questions. */
class FeaturesTest {

  private static GatewayFixture gw;
  private static Clients admin;
  private static WebClient web;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder().env(GatewaySettings.CANCEL_GRACE, "2"));
    admin = gw.admin();
    web = WebClient.create(gw.vertx());
  }

  @AfterAll
  static void stop() {
    web.close();
    gw.close();
  }

  private static HttpResponse<Buffer> post(String path, JsonObject body) {
    return GatewayFixture.await(web.post(gw.node().httpPort(), "127.0.0.1", path)
      .putHeader("authorization", admin.authorization()).sendJsonObject(body));
  }

  private static HttpResponse<Buffer> get(String path) {
    return GatewayFixture.await(web.get(gw.node().httpPort(), "127.0.0.1", path).putHeader("authorization", admin.authorization()).send());
  }

  @Test
  void injectionReachesOnlyAgentsThatDeclaredItAndTheAckIsRecorded() {
    try (RawAgent able = gw.connect("inj-yes", gw.agentToken("inj-yes"), "injection");
         RawAgent unable = gw.connect("inj-no", gw.agentToken("inj-no"))) {
      HttpResponse<Buffer> sent = post("/api/v1/gateway/agents/inj-yes/inject",
        new JsonObject().put("content", "the build is red").put("priority", "immediate").put("source", "system"));
      assertThat(sent.statusCode()).isEqualTo(202);
      String injectionId = sent.bodyAsJsonObject().getString("injectionId");
      ServerMessage m = able.next();
      assertThat(m.getInjectContext().getInjectionId()).isEqualTo(injectionId);
      assertThat(m.getInjectContext().getContent()).isEqualTo("the build is red");
      assertThat(m.getInjectContext().getPriority()).isEqualTo(InjectionPriority.INJECTION_PRIORITY_IMMEDIATE);
      assertThat(m.getInjectContext().getSource()).isEqualTo("system");
      able.send(AgentMessage.newBuilder().setInjectionAck(InjectionAck.newBuilder().setInjectionId(injectionId).setAccepted(false).setReason("busy")).build());
      JsonObject recorded = awaitInjection(injectionId, "rejected");
      assertThat(recorded.getString("reason")).isEqualTo("busy");

      HttpResponse<Buffer> refused = post("/api/v1/gateway/agents/inj-no/inject", new JsonObject().put("content", "x"));
      assertThat(refused.statusCode()).isEqualTo(409);
      assertThat(refused.bodyAsJsonObject().getString("code")).isEqualTo("feature_not_supported");
      assertThat(unable.poll(300)).as("nothing sent to an agent without injection").isNull();

      assertThat(post("/api/v1/gateway/agents/nobody/inject", new JsonObject().put("content", "x")).statusCode()).isEqualTo(404);
      assertThat(post("/api/v1/gateway/agents/inj-yes/inject", new JsonObject().put("content", "x").put("priority", "urgent")).statusCode()).isEqualTo(400);
      assertThat(post("/api/v1/gateway/agents/inj-yes/inject", new JsonObject()).statusCode()).isEqualTo(400);
    }
  }

  @Test
  void anAgentWithCancellationIsAskedAndItsCancelledEndsTheRequest() {
    try (RawAgent agent = gw.connect("can-yes", gw.agentToken("can-yes"), "cancellation"); EventTap tap = admin.stream("can-yes", null)) {
      String r = admin.sendOk("can-yes", "long job", "can-yes-1");
      agent.next();
      HttpResponse<Buffer> cancel = post("/api/v1/gateway/requests/" + r + "/cancel", new JsonObject().put("reason", "user_requested"));
      assertThat(cancel.statusCode()).isEqualTo(200);
      assertThat(cancel.bodyAsJsonObject().getString("state")).isEqualTo("cancelling");
      ServerMessage asked = agent.next();
      assertThat(asked.getCancelRequest().getRequestId()).isEqualTo(r);
      assertThat(asked.getCancelRequest().getReason()).isEqualTo("user_requested");
      agent.respond(r, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason("user_requested")));
      List<ClientStreamEvent> events = tap.until(EventTap::terminal);
      assertThat(events.get(events.size() - 1).getError().getMessage()).isEqualTo("cancelled: user_requested");
      assertThat(get("/api/v1/gateway/requests/" + r).bodyAsJsonObject().getString("state")).isEqualTo("cancelled");
    }
  }

  @Test
  void anAgentThatIgnoresACancelIsCutOffAfterTheGrace() {
    try (RawAgent agent = gw.connect("can-slow", gw.agentToken("can-slow"), "cancellation"); EventTap tap = admin.stream("can-slow", null)) {
      String r = admin.sendOk("can-slow", "long job", "can-slow-1");
      String next = admin.sendOk("can-slow", "next job", "can-slow-2");
      agent.next();
      post("/api/v1/gateway/requests/" + r + "/cancel", new JsonObject());
      assertThat(agent.next().hasCancelRequest()).isTrue();
      List<ClientStreamEvent> events = tap.until(EventTap::terminal);
      assertThat(events.get(events.size() - 1).getError().getMessage()).contains("did not confirm in time");
      agent.respond(r, MessageResponse.newBuilder().setText("too late"));
      assertThat(agent.poll(300)).as("no new work before the agent ends the old request").isNull();
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(next);
    }
  }

  @Test
  void anAgentWithoutCancellationHasTheRequestEndedAtTheGatewayAndLaterEventsDiscarded() {
    double before = dropped();
    try (RawAgent agent = gw.connect("can-no", gw.agentToken("can-no")); EventTap tap = admin.stream("can-no", null)) {
      String r = admin.sendOk("can-no", "long job", "can-no-1");
      String next = admin.sendOk("can-no", "next job", "can-no-2");
      agent.next();
      HttpResponse<Buffer> cancel = post("/api/v1/gateway/requests/" + r + "/cancel", new JsonObject().put("reason", "stop"));
      assertThat(cancel.bodyAsJsonObject().getString("state")).isEqualTo("cancelled");
      List<ClientStreamEvent> events = tap.until(EventTap::terminal);
      assertThat(events.get(events.size() - 1).getError().getMessage()).isEqualTo("cancelled: stop");
      assertThat(agent.poll(300)).as("no CancelRequest to an agent without cancellation").isNull();

      agent.respond(r, MessageResponse.newBuilder().setText("still working"));
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(agent.next().getSendMessage().getRequestId()).as("next dispatched once the agent finished").isEqualTo(next);
      assertThat(tap.poll(300)).as("the discarded events never reach clients").matches(e -> e == null || e.hasEvent());
      assertThat(dropped()).isGreaterThan(before);
    }
  }

  @Test
  void aQueuedRequestIsCancelledBeforeDeliveryAndFinishedOnesCannotBe() {
    try (RawAgent agent = gw.connect("can-q", gw.agentToken("can-q"))) {
      String first = admin.sendOk("can-q", "first", "can-q-1");
      String queued = admin.sendOk("can-q", "second", "can-q-2");
      String third = admin.sendOk("can-q", "third", "can-q-3");
      agent.next();
      assertThat(post("/api/v1/gateway/requests/" + queued + "/cancel", new JsonObject()).bodyAsJsonObject().getString("state")).isEqualTo("cancelled");
      agent.respond(first, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(third);
      HttpResponse<Buffer> again = post("/api/v1/gateway/requests/" + queued + "/cancel", new JsonObject());
      assertThat(again.statusCode()).isEqualTo(409);
      assertThat(again.bodyAsJsonObject().getString("code")).isEqualTo("request_finished");
      assertThat(post("/api/v1/gateway/requests/00000000-0000-0000-0000-000000000000/cancel", new JsonObject()).statusCode()).isEqualTo(404);
      assertThat(post("/api/v1/gateway/requests/not-a-uuid/cancel", new JsonObject()).statusCode()).isEqualTo(400);
    }
  }

  @Test
  void toolApprovalsRoundTripAndApproveAllHoldsForTheRestOfTheRequest() {
    try (RawAgent agent = gw.connect("approver", gw.agentToken("approver")); EventTap tap = admin.stream("approver", null)) {
      String r = admin.sendOk("approver", "risky", "approver-1");
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("t1").setName("rm").setInputJson("{\"path\":\"/\"}")));
      ClientStreamEvent asked = tap.until(ClientStreamEvent::hasToolApproval).get(1);
      assertThat(asked.getToolApproval().getToolId()).isEqualTo("t1");
      assertThat(asked.getToolApproval().getToolName()).isEqualTo("rm");
      assertThat(asked.getToolApproval().getRequestId()).isEqualTo(r);

      ApproveToolResponse denied = approve("approver", "t1", false, false);
      assertThat(denied.getSuccess()).isTrue();
      ServerMessage decision = agent.next();
      assertThat(decision.getToolApproval().getId()).isEqualTo("t1");
      assertThat(decision.getToolApproval().getApproved()).isFalse();
      assertThat(approve("approver", "t1", true, false).getSuccess()).as("decided once").isFalse();

      agent.respond(r, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("t2").setName("ls")));
      tap.until(ClientStreamEvent::hasToolApproval);
      assertThat(approve("approver", "t2", true, true).getSuccess()).isTrue();
      ServerMessage all = agent.next();
      assertThat(all.getToolApproval().getApproved()).isTrue();
      assertThat(all.getToolApproval().getApproveAll()).isTrue();

      // approve_all: the next request of the same request is answered without asking anyone
      agent.respond(r, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("t3").setName("cat")));
      ServerMessage auto = agent.next();
      assertThat(auto.getToolApproval().getId()).isEqualTo("t3");
      assertThat(auto.getToolApproval().getApproved()).isTrue();
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));

      // a new request starts without approve_all
      String r2 = admin.sendOk("approver", "again", "approver-2");
      agent.next();
      agent.respond(r2, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("t4").setName("rm")));
      assertThat(agent.poll(500)).as("approve_all held only for its request").isNull();
      assertThat(approve("approver", "t4", true, false).getSuccess()).isTrue();
      agent.next();
      agent.respond(r2, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(approve("approver", "nope", true, false).getError()).contains("no pending approval");
    }
  }

  @Test
  void pendingApprovalsAreResentToAClientThatResumes() {
    try (RawAgent agent = gw.connect("resumer", gw.agentToken("resumer"))) {
      String r = admin.sendOk("resumer", "risky", "resumer-1");
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("p1").setName("deploy")));
      agent.respond(r, MessageResponse.newBuilder().setText("waiting for approval"));
      String lastSeen;
      try (EventTap first = admin.stream("resumer", "0")) {
        first.until(ClientStreamEvent::hasText);
        lastSeen = "3";
      }
      try (EventTap resumed = admin.stream("resumer", lastSeen)) {
        ClientStreamEvent again = resumed.next();
        assertThat(again.getToolApproval().getToolId()).isEqualTo("p1");
      }
      approve("resumer", "p1", true, false);
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      try (EventTap afterwards = admin.stream("resumer", lastSeen)) {
        assertThat(afterwards.next().hasToolApproval()).as("a decided approval is not re-sent").isFalse();
      }
    }
  }

  @Test
  void unknownPackToolsAreAnsweredWithAnErrorNamingTheTool() {
    try (RawAgent agent = gw.connect("packer", gw.agentToken("packer"))) {
      agent.send(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder().setRequestId("pt-1").setToolName("weather.lookup").setInputJson("{}")).build());
      ServerMessage result = agent.next();
      assertThat(result.getPackToolResult().getRequestId()).isEqualTo("pt-1");
      assertThat(result.getPackToolResult().getError()).contains("weather.lookup");
    }
  }

  @Test
  void answeringAQuestionThatDoesNotExistSaysSo() {
    var out = admin.grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder()
      .setAgentId("packer").setQuestionId("q-1").addSelected("yes").build(), admin.authorization()).response().orElseThrow();
    assertThat(out.getSuccess()).isFalse();
    assertThat(out.getError()).contains("no pending question with ID q-1");
  }

  private static ApproveToolResponse approve(String agentId, String toolId, boolean approved, boolean all) {
    return admin.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder()
      .setAgentId(agentId).setToolId(toolId).setApproved(approved).setApproveAll(all).build(), admin.authorization()).response().orElseThrow();
  }

  private static JsonObject awaitInjection(String id, String state) {
    for (int i = 0; i < 50; i++) {
      JsonObject j = get("/api/v1/gateway/injections/" + id).bodyAsJsonObject();
      if (state.equals(j.getString("state"))) {
        return j;
      }
      EventsTest.sleep(100);
    }
    throw new AssertionError("injection " + id + " never became " + state);
  }

  private static double dropped() {
    var c = gw.node().runtime().context().metrics().find(MetricNames.GATEWAY_EVENTS_DROPPED)
      .tag("reason", SessionMetrics.DropReason.CANCELLED_REQUEST.name().toLowerCase()).counter();
    return c == null ? 0 : c.count();
  }
}
