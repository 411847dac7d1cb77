package dev.conclave.gateway.access;

import com.google.protobuf.Empty;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Members act only on agents they own or were granted. Each test here reproduces a finding of the
 * access-control review (a member reaching into another member's agent) and fails without the rule.
 */
class AccessControlTest {

  private static GatewayFixture gw;
  private static WebClient http;
  private static Principal alice;
  private static Principal bob;
  private static Clients aliceClient;
  private static Clients bobClient;
  private static String aliceToken;
  private static String bobToken;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
    alice = gw.newMember("alice");
    bob = gw.newMember("bob");
    aliceToken = gw.token(alice);
    bobToken = gw.token(bob);
    aliceClient = gw.clients(aliceToken);
    bobClient = gw.clients(bobToken);
  }

  @AfterAll
  static void stop() {
    http.close();
    gw.close();
  }

  @Test
  void aMemberCannotApproveAnotherMembersToolCall() {
    try (RawAgent agent = gw.connect("alice-rm", gw.agentTokenOwnedBy("alice-rm", alice.id()))) {
      String request = aliceClient.sendOk("alice-rm", "clean up", "k-rm");
      ServerMessage work = agent.next();
      agent.respond(work.getSendMessage().getRequestId(), MessageResponse.newBuilder().setToolApprovalRequest(
        ToolApprovalRequest.newBuilder().setId("rm-1").setName("rm_rf").setInputJson("{\"path\":\"/\"}")));
      var byBob = bobClient.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder()
        .setAgentId("alice-rm").setToolId("rm-1").setApproved(true).setApproveAll(true).build(), bobClient.authorization());
      assertThat(byBob.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      assertThat(byBob.message()).startsWith("agent_access_denied:");
      assertThat(agent.poll(500)).as("the agent received no decision").isNull();
      var byAlice = aliceClient.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder()
        .setAgentId("alice-rm").setToolId("rm-1").setApproved(false).build(), aliceClient.authorization());
      assertThat(byAlice.response().orElseThrow().getSuccess()).isTrue();
      assertThat(agent.next().getToolApproval().getApproved()).isFalse();
      assertThat(request).isNotBlank();
    }
  }

  @Test
  void aMemberCannotReadFollowSendToOrSeeAnotherMembersAgent() {
    try (RawAgent agent = gw.connect("alice-private", gw.agentTokenOwnedBy("alice-private", alice.id()))) {
      aliceClient.sendOk("alice-private", "secret plans", "k-private");
      var read = bobClient.grpc().unary(ClientServiceGrpcClient.GetEvents,
        GetEventsRequest.newBuilder().setConversationKey("alice-private").build(), bobClient.authorization());
      assertThat(read.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      try (EventTap follow = bobClient.stream("alice-private", "0")) {
        assertThat(follow.awaitEnd()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      }
      assertThat(bobClient.send("alice-private", "let me in", "k-bob").status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      var bobSees = bobClient.grpc().unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), bobClient.authorization());
      assertThat(bobSees.response().orElseThrow().getAgentsList()).extracting(a -> a.getId()).doesNotContain("alice-private");
      var aliceSees = aliceClient.grpc().unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), aliceClient.authorization());
      assertThat(aliceSees.response().orElseThrow().getAgentsList()).extracting(a -> a.getId()).contains("alice-private");
      assertThat(get("/api/v1/gateway/usage/agents/alice-private", bobToken).statusCode()).isEqualTo(403);
      assertThat(post("/api/v1/gateway/agents/alice-private/inject", bobToken, new JsonObject().put("content", "psst")).statusCode())
        .isEqualTo(403);
    }
  }

  @Test
  void aGrantGivesAccessAndTakingItBackRemovesIt() {
    try (RawAgent agent = gw.connect("alice-shared", gw.agentTokenOwnedBy("alice-shared", alice.id()))) {
      assertThat(bobClient.send("alice-shared", "hi", "k-s1").status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      assertThat(post("/api/v1/gateway/agents/alice-shared/grants", bobToken, new JsonObject().put("principalId", bob.id().toString()))
        .statusCode()).as("only the owner grants").isEqualTo(403);
      assertThat(post("/api/v1/gateway/agents/alice-shared/grants", aliceToken, new JsonObject().put("principalId", bob.id().toString()))
        .statusCode()).isEqualTo(200);
      assertThat(bobClient.send("alice-shared", "hi", "k-s2").status()).isEqualTo(GrpcStatus.OK);
      assertThat(delete("/api/v1/gateway/agents/alice-shared/grants/" + bob.id(), aliceToken).statusCode()).isEqualTo(200);
      assertThat(bobClient.send("alice-shared", "again", "k-s3").status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    }
  }

  @Test
  void anInjectionIsVisibleOnlyToThoseWhoMayActOnItsAgent() {
    try (RawAgent agent = gw.connect("alice-inject", gw.agentTokenOwnedBy("alice-inject", alice.id()), "injection")) {
      HttpResponse<Buffer> sent = post("/api/v1/gateway/agents/alice-inject/inject", aliceToken, new JsonObject().put("content", "note"));
      assertThat(sent.statusCode()).isEqualTo(202);
      String id = sent.bodyAsJsonObject().getString("injectionId");
      assertThat(get("/api/v1/gateway/injections/" + id, aliceToken).statusCode()).isEqualTo(200);
      HttpResponse<Buffer> byBob = get("/api/v1/gateway/injections/" + id, bobToken);
      assertThat(byBob.statusCode()).isEqualTo(404);
      assertThat(byBob.bodyAsJsonObject().getString("code")).isEqualTo("injection_not_found");
    }
  }

  @Test
  void anAgentIdCannotBeTakenOverByAnotherPrincipalWhileItsOwnerIsAway() {
    String aliceAgentToken = gw.agentTokenOwnedBy("alice-own", alice.id());
    try (RawAgent agent = gw.connect("alice-own", aliceAgentToken)) {
      aliceClient.sendOk("alice-own", "private notes", "k-own");
    }
    // with Alice's agent gone, Bob's agent principal asks for its id: its conversation and secrets would follow
    try (RawAgent impostor = RawAgent.open(gw.grpc().client(), gw.grpc().address(), gw.agentTokenOwnedBy("bob-agent", bob.id()))) {
      impostor.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("alice-own")).build());
      ServerMessage answer = impostor.next();
      assertThat(answer.hasRegistrationError()).as(answer.toString()).isTrue();
      assertThat(answer.getRegistrationError().getReason()).contains("belongs to another principal");
      assertThat(answer.getRegistrationError().getSuggestedId()).startsWith("alice-own-");
    }
    var bobReads = bobClient.grpc().unary(ClientServiceGrpcClient.GetEvents,
      GetEventsRequest.newBuilder().setConversationKey("alice-own").build(), bobClient.authorization());
    assertThat(bobReads.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    // its own principal comes back to it
    try (RawAgent again = gw.connect("alice-own", aliceAgentToken)) {
      assertThat(again.ended()).isFalse();
    }
  }

  @Test
  void aTokenInTheQueryStringIsNeverAccepted() {
    var request = http.get(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/agents?access_token=" + aliceToken)
      .putHeader("upgrade", "websocket").putHeader("connection", "Upgrade");
    assertThat(send(request, null).statusCode()).isEqualTo(401);
    assertThat(send(http.get(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/agents?access_token=" + aliceToken), null).statusCode())
      .isEqualTo(401);
  }

  @Test
  void everyoneMaySeeWhoTheyAre() {
    var me = bobClient.grpc().unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(bobToken));
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(bob.id().toString());
  }

  private static HttpResponse<Buffer> get(String path, String token) {
    return send(http.get(gw.node().httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token), null);
  }

  private static HttpResponse<Buffer> post(String path, String token, JsonObject body) {
    return send(http.post(gw.node().httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token), body);
  }

  private static HttpResponse<Buffer> delete(String path, String token) {
    return send(http.delete(gw.node().httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token), null);
  }

  private static HttpResponse<Buffer> send(io.vertx.ext.web.client.HttpRequest<Buffer> request, JsonObject body) {
    try {
      return (body == null ? request.send() : request.sendJsonObject(body)).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
