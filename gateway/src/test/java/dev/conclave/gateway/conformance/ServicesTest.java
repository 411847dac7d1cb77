package dev.conclave.gateway.conformance;

import com.google.protobuf.Empty;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.CreateTokenRequest;
import dev.conclave.proto.coven.DeleteBindingRequest;
import dev.conclave.proto.coven.DeletePrincipalRequest;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.ListBindingsRequest;
import dev.conclave.proto.coven.ListPrincipalsRequest;
import dev.conclave.proto.coven.MeResponse;
import dev.conclave.proto.coven.RegisterAgentRequest;
import dev.conclave.proto.coven.RegisterClientRequest;
import dev.conclave.proto.coven.UpdateBindingRequest;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** ClientService's directory and identity calls, and AdminService. */
class ServicesTest {

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

  private static <R, Q> GrpcCalls.Outcome<R> call(io.vertx.grpc.common.ServiceMethod<R, Q> m, Q req, Clients who) {
    return who.grpc().unary(m, req, who.authorization());
  }

  @Test
  void listAgentsShowsConnectedAndOfflineAgentsWithWorkspaceFilter() {
    try (RawAgent online = gw.agent(gw.agentToken("online"))) {
      online.register(RawAgent.registration("dir-online").setMetadata(RawAgent.registration("x").getMetadata().toBuilder().clearWorkspaces().addWorkspaces("ops")));
      try (RawAgent gone = gw.connect("dir-offline", gw.agentToken("offline"))) {
        gone.finish();
        gone.awaitEnd();
      }
      // the stream's end reaches this side before the gateway has written the agent's disconnection
      dev.conclave.platform.testing.Await.until("dir-offline shown disconnected", () ->
        call(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), admin).response().orElseThrow().getAgentsList()
          .stream().anyMatch(a -> a.getId().equals("dir-offline") && !a.getConnected()));
      List<AgentInfo> all = call(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), admin).response().orElseThrow().getAgentsList();
      AgentInfo on = all.stream().filter(a -> a.getId().equals("dir-online")).findFirst().orElseThrow();
      AgentInfo off = all.stream().filter(a -> a.getId().equals("dir-offline")).findFirst().orElseThrow();
      assertThat(on.getConnected()).isTrue();
      assertThat(on.getBackend()).isEqualTo("direct");
      assertThat(on.getWorkingDir()).isEqualTo("/work/x");
      assertThat(on.getMetadata().getHostname()).isEqualTo("test-host");
      assertThat(off.getConnected()).isFalse();
      List<AgentInfo> ops = call(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.newBuilder().setWorkspace("ops").build(), admin)
        .response().orElseThrow().getAgentsList();
      assertThat(ops).extracting(AgentInfo::getId).containsExactly("dir-online");
    }
  }

  @Test
  void getMeDescribesTheCaller() {
    MeResponse me = call(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), admin).response().orElseThrow();
    assertThat(me.getPrincipalType()).isEqualTo("client");
    assertThat(me.getDisplayName()).isEqualTo("admin");
    assertThat(me.getStatus()).isEqualTo("approved");
    assertThat(me.getRolesList()).contains("admin", "owner");
    Clients agent = gw.clients(gw.agentToken("just-an-agent"));
    assertThat(call(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), agent).response().orElseThrow().getPrincipalType()).isEqualTo("agent");
  }

  @Test
  void clientCallsNeedTheMemberRole() {
    Clients agentPrincipal = gw.clients(gw.agentToken("no-roles"));
    var out = call(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), agentPrincipal);
    assertThat(out.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(out.message()).contains("member_required");
    Clients member = gw.clients(gw.memberToken("bob"));
    assertThat(call(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), member).status()).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void selfRegistrationIsPendingForMembersAndApprovedForAdmins() {
    String fp = "a".repeat(64);
    Clients member = gw.clients(gw.memberToken("carol"));
    var pending = call(ClientServiceGrpcClient.RegisterAgent, RegisterAgentRequest.newBuilder().setDisplayName("carol's agent").setFingerprint(fp).build(), member);
    assertThat(pending.response().orElseThrow().getStatus()).isEqualTo("pending");
    var dup = call(ClientServiceGrpcClient.RegisterAgent, RegisterAgentRequest.newBuilder().setDisplayName("again").setFingerprint(fp).build(), member);
    assertThat(dup.status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
    var approved = call(ClientServiceGrpcClient.RegisterClient, RegisterClientRequest.newBuilder().setDisplayName("tui").setFingerprint("b".repeat(64)).build(), admin);
    assertThat(approved.response().orElseThrow().getStatus()).isEqualTo("approved");
    assertThat(call(ClientServiceGrpcClient.RegisterClient, RegisterClientRequest.newBuilder().setDisplayName("tui").setFingerprint("short").build(), admin).status())
      .isEqualTo(GrpcStatus.INVALID_ARGUMENT);

    // an admin approves the pending agent over HTTP; then it can register
    String id = pending.response().orElseThrow().getPrincipalId();
    WebClient web = WebClient.create(gw.vertx());
    try {
      var resp = GatewayFixture.await(web.post(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/principals/" + id + "/approve")
        .putHeader("authorization", admin.authorization()).send());
      assertThat(resp.statusCode()).isEqualTo(200);
      var denied = GatewayFixture.await(web.post(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/principals/" + id + "/approve")
        .putHeader("authorization", member.authorization()).send());
      assertThat(denied.statusCode()).isEqualTo(403);
    } finally {
      web.close();
    }
  }

  @Test
  void adminServiceManagesBindings() {
    var created = call(AdminServiceGrpcClient.CreateBinding, CreateBindingRequest.newBuilder().setFrontend("matrix").setChannelId("!room").setAgentId("a1").build(), admin);
    assertThat(created.status()).isEqualTo(GrpcStatus.OK);
    String id = created.response().orElseThrow().getId();
    assertThat(created.response().orElseThrow().getCreatedAt()).isNotEmpty();
    assertThat(call(AdminServiceGrpcClient.CreateBinding, CreateBindingRequest.newBuilder().setFrontend("matrix").setChannelId("!room").setAgentId("a2").build(), admin).status())
      .isEqualTo(GrpcStatus.ALREADY_EXISTS);
    assertThat(call(AdminServiceGrpcClient.CreateBinding, CreateBindingRequest.newBuilder().setFrontend("matrix").setAgentId("a2").build(), admin).status())
      .isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(call(AdminServiceGrpcClient.UpdateBinding, UpdateBindingRequest.newBuilder().setId(id).setAgentId("a3").build(), admin)
      .response().orElseThrow().getAgentId()).isEqualTo("a3");
    assertThat(call(AdminServiceGrpcClient.ListBindings, ListBindingsRequest.newBuilder().setAgentId("a3").build(), admin)
      .response().orElseThrow().getBindingsList()).hasSize(1);
    assertThat(call(AdminServiceGrpcClient.DeleteBinding, DeleteBindingRequest.newBuilder().setId(id).build(), admin).status()).isEqualTo(GrpcStatus.OK);
    assertThat(call(AdminServiceGrpcClient.DeleteBinding, DeleteBindingRequest.newBuilder().setId(id).build(), admin).status()).isEqualTo(GrpcStatus.NOT_FOUND);
    assertThat(call(AdminServiceGrpcClient.DeleteBinding, DeleteBindingRequest.newBuilder().setId("nope").build(), admin).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
  }

  @Test
  void adminServiceManagesPrincipalsAndTokensAndDeletingRevokes() {
    var p = call(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder().setType("agent").setDisplayName("ci agent")
      .setPubkey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci").build(), admin).response().orElseThrow();
    assertThat(p.getStatus()).isEqualTo("approved");
    assertThat(p.getPubkeyFp()).hasSize(64);
    assertThat(call(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder().setType("robot").setDisplayName("x").build(), admin).status())
      .isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(call(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder().setType("client").setDisplayName("x").addRoles("god").build(), admin).status())
      .isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    // a display name that reads as another (bidi override) or hides lines is refused, naming the field
    var spoof = call(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder().setType("client")
      .setDisplayName("admin\u202E tnega").build(), admin);
    assertThat(spoof.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(spoof.message()).contains("display_name").contains("bidirectional");
    assertThat(call(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder().setType("client")
      .setDisplayName("x".repeat(70_000)).build(), admin).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(call(AdminServiceGrpcClient.ListPrincipals, ListPrincipalsRequest.newBuilder().setType("agent").build(), admin)
      .response().orElseThrow().getPrincipalsList()).anySatisfy(x -> assertThat(x.getId()).isEqualTo(p.getId()));

    var token = call(AdminServiceGrpcClient.CreateToken, CreateTokenRequest.newBuilder().setPrincipalId(p.getId()).setTtlSeconds(600).build(), admin).response().orElseThrow();
    assertThat(token.getExpiresAt()).isNotEmpty();
    try (RawAgent agent = gw.agent(token.getToken())) {
      assertThat(agent.register(RawAgent.registration("ci-agent")).getPrincipalId()).isEqualTo(p.getId());
    }
    assertThat(call(AdminServiceGrpcClient.DeletePrincipal, DeletePrincipalRequest.newBuilder().setId(p.getId()).build(), admin).status()).isEqualTo(GrpcStatus.OK);
    try (RawAgent agent = gw.agent(token.getToken())) {
      agent.heartbeat();
      assertThat(agent.awaitEnd().status()).as("a deleted principal's tokens are revoked").isEqualTo(GrpcStatus.UNAUTHENTICATED);
    }
    assertThat(call(AdminServiceGrpcClient.CreateToken, CreateTokenRequest.newBuilder().setPrincipalId(p.getId()).build(), admin).status())
      .isEqualTo(GrpcStatus.NOT_FOUND);
  }

  @Test
  void adminServiceNeedsAnAdmin() {
    Clients member = gw.clients(gw.memberToken("dave"));
    var out = call(AdminServiceGrpcClient.ListPrincipals, ListPrincipalsRequest.getDefaultInstance(), member);
    assertThat(out.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(out.message()).contains("admin_required");
  }
}
