package dev.conclave.gateway.conformance;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Spec 000, RegisterAgent: the first message, every way a registration is refused, Welcome, identity. */
class RegistrationTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder()
      .env(GatewaySettings.REGISTER_TIMEOUT, "1")
      .env(GatewaySettings.HEARTBEAT_TIMEOUT, "2"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void theFirstMessageMustBeRegister() {
    try (RawAgent agent = gw.agent(gw.agentToken("a"))) {
      agent.send(AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setTimestampMs(1)).build());
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(end.message()).contains("register_expected").contains("heartbeat");
    }
  }

  @Test
  void aMissingAgentIdIsInvalid() {
    try (RawAgent agent = gw.agent(gw.agentToken("a"))) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("")).build());
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(end.message()).contains("agent_id");
    }
  }

  @Test
  void agentIdsAndNamesThatCouldDeceiveOrFloodAreRefusedNamingTheField() {
    record Case(String agentId, String name, String field, String why) {
    }
    for (Case c : java.util.List.of(
      new Case("<script>alert(1)</script>", "ok", "agent_id", "letters, digits"),
      new Case("evil\u202Egnp.exe", "ok", "agent_id", "letters, digits"),
      new Case("fine-agent", "admin\u202E tnega", "name", "control or bidirectional"),
      new Case("fine-agent", "line\nbreak", "name", "control or bidirectional"),
      new Case("fine-agent", "x".repeat(70_000), "name", "at most 200"))) {
      try (RawAgent agent = gw.agent(gw.agentToken("v"))) {
        agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration(c.agentId()).setName(c.name())).build());
        RawAgent.End end = agent.awaitEnd();
        assertThat(end.status()).as(c.toString()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
        assertThat(end.message()).as(c.toString()).contains(c.field()).contains(c.why());
      }
    }
    // ordinary ids and names in any script pass
    try (RawAgent agent = gw.agent(gw.agentToken("v"))) {
      agent.register(RawAgent.registration("agent.über-1_b@host:2").setName("Über-Agent 🤖 (der Erste)"));
    }
  }

  @Test
  void anUnauthenticatedCallerIsRefused() {
    try (RawAgent agent = gw.agent(null)) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("anon")).build());
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(end.message()).contains("token_missing");
    }
    try (RawAgent agent = gw.agent("not-a-token")) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("anon")).build());
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    }
  }

  @Test
  void aPrincipalThatIsNotApprovedGetsARegistrationError() {
    String token = gw.token(gw.newPrincipal(PrincipalType.AGENT, "pending agent", PrincipalStatus.PENDING, List.of()));
    try (RawAgent agent = gw.agent(token)) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("pending-1")).build());
      ServerMessage answer = agent.next();
      assertThat(answer.hasRegistrationError()).isTrue();
      assertThat(answer.getRegistrationError().getReason()).contains("pending").contains("approve");
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    }
  }

  @Test
  void aClientPrincipalCannotRegisterAnAgent() {
    try (RawAgent agent = gw.agent(gw.memberToken("alice"))) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("alice-agent")).build());
      assertThat(agent.next().getRegistrationError().getReason()).contains("type 'client'");
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    }
  }

  @Test
  void welcomeCarriesEverythingTheSpecNames() {
    String token = gw.agentToken("welcome");
    Caller me = GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(token));
    try (RawAgent agent = gw.agent(token)) {
      Welcome w = agent.register(RawAgent.registration("welcome-1"));
      assertThat(w.getServerId()).isEqualTo(gw.node().runtime().config().nodeId());
      assertThat(w.getAgentId()).isEqualTo("welcome-1");
      assertThat(w.getInstanceId()).matches("[a-z0-9]{6}");
      assertThat(w.getPrincipalId()).isEqualTo(me.principalId().toString());
      assertThat(w.getAvailableToolsList()).isEmpty();
      assertThat(w.getSecretsMap()).isEmpty();
      assertThat(w.getMcpEndpoint()).startsWith("http://").endsWith("/mcp");
      Caller mcp = GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(w.getMcpToken(),
        java.util.EnumSet.of(TokenPurpose.MCP)));
      assertThat(mcp.principalId()).isEqualTo(me.principalId());
      assertThat(mcp.agentScope().orElseThrow().agentId()).isEqualTo("welcome-1");
      assertThat(mcp.agentScope().orElseThrow().capabilities()).containsExactly("chat");
      // the MCP token is for the MCP endpoint only
      assertThatThrownBy(() -> GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(w.getMcpToken())))
        .hasMessageContaining("only 'api' tokens are accepted here");
    }
  }

  @Test
  void instanceIdsAreUniquePerAgentAndStableAcrossReconnects() {
    String token = gw.agentToken("ids");
    String first;
    try (RawAgent a = gw.agent(token); RawAgent b = gw.agent(token)) {
      first = a.register(RawAgent.registration("ids-a")).getInstanceId();
      assertThat(b.register(RawAgent.registration("ids-b")).getInstanceId()).isNotEqualTo(first);
    }
    try (RawAgent again = gw.agent(token)) {
      assertThat(again.register(RawAgent.registration("ids-a")).getInstanceId()).isEqualTo(first);
    }
  }

  @Test
  void aLiveAgentIdHeldByAnotherPrincipalIsRefusedWithASuggestion() {
    try (RawAgent owner = gw.connect("shared-id", gw.agentToken("owner"));
         RawAgent intruder = gw.agent(gw.agentToken("intruder"))) {
      intruder.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("shared-id")).build());
      ServerMessage answer = intruder.next();
      assertThat(answer.getRegistrationError().getSuggestedId()).startsWith("shared-id-").isNotEqualTo("shared-id");
      assertThat(intruder.awaitEnd().status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
      assertThat(owner.ended()).isFalse();
      owner.heartbeat();
      assertThat(owner.poll(300)).isNull();
      assertThat(owner.ended()).isFalse();
    }
  }

  @Test
  void aReconnectByTheSamePrincipalSupersedesTheOldStream() {
    String token = gw.agentToken("twin");
    try (RawAgent old = gw.connect("twin-1", token)) {
      try (RawAgent fresh = gw.agent(token)) {
        fresh.register(RawAgent.registration("twin-1"));
        ServerMessage shutdown = old.next();
        assertThat(shutdown.hasShutdown()).isTrue();
        assertThat(shutdown.getShutdown().getReason()).contains("superseded");
        assertThat(old.awaitEnd().status()).isNotEqualTo(GrpcStatus.OK);

        String id = gw.admin().sendOk("twin-1", "to the new stream", "twin-k1");
        assertThat(fresh.next().getSendMessage().getRequestId()).isEqualTo(id);
      }
    }
  }

  @Test
  void registeringTwiceOnOneStreamIsInvalid() {
    try (RawAgent agent = gw.connect("twice", gw.agentToken("twice"))) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("twice")).build());
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
  }

  @Test
  void aStreamThatNeverRegistersIsClosed() throws Exception {
    // open the stream with headers only, as an agent that connects and then says nothing
    var http = gw.vertx().createHttpClient(new io.vertx.core.http.HttpClientOptions()
      .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
    try {
      var request = GatewayFixture.await(http.request(io.vertx.core.http.HttpMethod.POST, gw.node().grpcPort(), "127.0.0.1",
        "/coven.CovenControl/AgentStream"));
      request.putHeader("content-type", "application/grpc").putHeader("te", "trailers")
        .putHeader("authorization", "Bearer " + gw.agentToken("mute"));
      GatewayFixture.await(request.sendHead());
      var response = GatewayFixture.await(request.response());
      GatewayFixture.await(response.end());
      String status = response.getTrailer("grpc-status") != null ? response.getTrailer("grpc-status") : response.getHeader("grpc-status");
      assertThat(status).isEqualTo(String.valueOf(GrpcStatus.DEADLINE_EXCEEDED.code));
      String message = response.getTrailer("grpc-message") != null ? response.getTrailer("grpc-message") : response.getHeader("grpc-message");
      assertThat(message).contains("register_timeout");
    } finally {
      http.close();
    }
  }

  @Test
  void heartbeatsKeepAnAgentAliveAndSilenceDisconnectsIt() throws Exception {
    Clients admin = gw.admin();
    try (RawAgent talker = gw.connect("talker", gw.agentToken("talker"));
         RawAgent silent = gw.connect("silent", gw.agentToken("silent"))) {
      for (int i = 0; i < 8; i++) {
        talker.heartbeat();
        Thread.sleep(500);
      }
      RawAgent.End end = silent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.DEADLINE_EXCEEDED);
      assertThat(end.message()).contains("agent_silent");
      assertThat(talker.ended()).isFalse();
      var agents = admin.grpc().unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), admin.authorization())
        .response().orElseThrow().getAgentsList();
      assertThat(agents).anySatisfy(a -> {
        assertThat(a.getId()).isEqualTo("silent");
        assertThat(a.getConnected()).isFalse();
      });
      assertThat(agents).anySatisfy(a -> {
        assertThat(a.getId()).isEqualTo("talker");
        assertThat(a.getConnected()).isTrue();
      });
    }
  }
}
