package dev.conclave.packs.builtin;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.HttpJson;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.support.McpClient;
import dev.conclave.packs.support.PackHost;
import dev.conclave.platform.auth.AdminBootstrap;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.RegisterAgent;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, finding 3: an agent made with {@code token --new-agent NAME} (owned by the bootstrap
 * admin, or by nobody) read another member's private conversation through {@code admin_agent_messages},
 * just by declaring the {@code admin} capability. The admin tools now need a grant an admin made on
 * the agent's principal; what the agent declares only narrows them, and they act with the reach of
 * the agent's owner (no owner: no member's reach).
 */
class AdminToolsGrantTest {

  private static final String SECRET = "alice's private plan: buy the moon";
  private static final List<String> ADMIN_TOOLS = List.of("admin_list_agents", "admin_agent_messages", "admin_send_message");

  private static PackHost host;
  private static HttpJson http;
  private static WebClient web;
  private static McpClient mcp;
  private static Principal alice;
  private static Principal bob;
  private static RawAgent victim;

  @BeforeAll
  static void start() {
    host = PackHost.start();
    GatewayFixture gw = host.gw();
    http = new HttpJson(gw.vertx(), gw.node().httpPort());
    web = WebClient.create(gw.vertx());
    mcp = new McpClient(gw.vertx(), gw.node().httpPort());
    alice = gw.newMember("alice");
    bob = gw.newMember("bob");
    victim = gw.connect("alice-agent", gw.agentTokenOwnedBy("alice-agent", alice.id()));
    Clients aliceClient = gw.clients(gw.token(alice));
    aliceClient.sendOk("alice-agent", SECRET, "k-secret");
  }

  @AfterAll
  static void stop() {
    victim.close();
    mcp.close();
    web.close();
    http.close();
    host.close();
  }

  @Test
  void anAgentOwnedByTheAdminWithoutAGrantGetsNoAdminToolsEvenWhenItDeclaresAdmin() {
    // what `./conclave token --new-agent NAME` made before: the bootstrap admin owned the agent
    Principal p = agentPrincipal("probe-admin-owned", Optional.of(AdminBootstrap.ADMIN_PRINCIPAL_ID));
    try (PackHost.ToolAgent agent = register(p, "probe-admin-owned", "admin", "chat")) {
      assertNoAdminReach(agent);
    }
  }

  @Test
  void anAgentWithoutAnOwnerOrAGrantGetsNoAdminToolsEvenWhenItDeclaresAdmin() {
    Principal p = agentPrincipal("probe-unowned", Optional.empty());
    try (PackHost.ToolAgent agent = register(p, "probe-unowned", "admin", "chat")) {
      assertNoAdminReach(agent);
    }
  }

  @Test
  void aGrantGivesTheToolsWithTheReachOfTheAgentsOwner() {
    Principal p = agentPrincipal("bobs-ops", Optional.of(bob.id()));
    grant(p.id(), "admin");
    JsonObject listed = http.get(host.gw().node().adminToken(), "/api/v1/gateway/principals/" + p.id() + "/capabilities").body();
    assertThat(listed.getJsonArray("capabilities").getJsonObject(0).getString("capability")).isEqualTo("admin");
    assertThat(listed.getJsonArray("capabilities").getJsonObject(0).getString("grantedBy"))
      .isEqualTo(AdminBootstrap.ADMIN_PRINCIPAL_ID.toString());
    try (PackHost.ToolAgent agent = register(p, "bobs-ops", "admin")) {
      assertThat(agent.toolNames()).containsAll(ADMIN_TOOLS);
      String session = mcp.session(agent.welcome().getMcpToken());
      assertThat(mcp.toolNames(agent.welcome().getMcpToken(), session)).containsAll(ADMIN_TOOLS);
      // bob may not read alice's agent, so neither may bob's agent
      PackToolResult read = agent.run("g1", "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent").encode());
      assertThat(read.getError()).contains("you do not own agent 'alice-agent'");
      assertThat(read.getOutputJson()).doesNotContain(SECRET);
      String listing = agent.run("g2", "admin_list_agents", "{}").getOutputJson();
      assertThat(listing).contains("bobs-ops").doesNotContain("alice-agent");
    }
  }

  @Test
  void aGrantToAnAgentTheAdminOwnsGivesTheAdminsReach() {
    Principal p = agentPrincipal("admins-ops", Optional.of(AdminBootstrap.ADMIN_PRINCIPAL_ID));
    grant(p.id(), "admin");
    try (PackHost.ToolAgent agent = register(p, "admins-ops", "admin")) {
      PackToolResult read = agent.run("a1", "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent").encode());
      assertThat(read.getError()).isEmpty();
      assertThat(read.getOutputJson()).contains(SECRET);
    }
  }

  @Test
  void aGrantedAgentWithoutAnOwnerActsWithNoMembersReach() {
    Principal p = agentPrincipal("lone-ops", Optional.empty());
    grant(p.id(), "admin");
    try (PackHost.ToolAgent agent = register(p, "lone-ops", "admin")) {
      assertThat(agent.toolNames()).containsAll(ADMIN_TOOLS);
      PackToolResult read = agent.run("l1", "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent").encode());
      assertThat(read.getError()).contains("you do not own agent 'alice-agent'");
      assertThat(agent.run("l2", "admin_list_agents", "{}").getOutputJson()).contains("lone-ops").doesNotContain("alice-agent");
    }
  }

  @Test
  void whatAnAgentDeclaresNarrowsItsToolsNeverWidensThem() {
    Principal p = agentPrincipal("narrow-ops", Optional.of(AdminBootstrap.ADMIN_PRINCIPAL_ID));
    grant(p.id(), "admin");
    try (PackHost.ToolAgent agent = register(p, "narrow-ops", "chat")) {
      assertThat(agent.toolNames()).doesNotContainAnyElementsOf(ADMIN_TOOLS);
      assertThat(agent.run("n1", "admin_list_agents", "{}").getError()).contains("requires capabilities [admin]");
    }
  }

  @Test
  void takingTheGrantBackStopsTheToolsOfAConnectedAgentAtOnce() {
    Principal p = agentPrincipal("revoked-ops", Optional.of(AdminBootstrap.ADMIN_PRINCIPAL_ID));
    grant(p.id(), "admin");
    try (PackHost.ToolAgent agent = register(p, "revoked-ops", "admin")) {
      assertThat(agent.run("r1", "admin_list_agents", "{}").getError()).isEmpty();
      HttpResponse<Buffer> taken = send(HttpMethod.DELETE, "/api/v1/gateway/principals/" + p.id() + "/capabilities/admin",
        host.gw().node().adminToken());
      assertThat(taken.statusCode()).isEqualTo(200);
      PackToolResult after = agent.run("r2", "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent").encode());
      assertThat(after.getError()).contains("has not been granted the 'admin' capability");
      assertThat(after.getOutputJson()).doesNotContain(SECRET);
    }
  }

  @Test
  void onlyAdminsGrantAndOnlyKnownCapabilitiesToAgentPrincipals() {
    Principal p = agentPrincipal("grant-rules", Optional.of(bob.id()));
    String path = "/api/v1/gateway/principals/" + p.id() + "/capabilities";
    HttpJson.Answer byOwner = http.post(host.gw().token(bob), path, new JsonObject().put("capability", "admin"));
    assertThat(byOwner.status()).as("an agent's owner does not grant it admin tools").isEqualTo(403);
    HttpJson.Answer unknown = http.post(host.gw().node().adminToken(), path, new JsonObject().put("capability", "root"));
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.body().getString("code")).isEqualTo("capability_not_grantable");
    HttpJson.Answer toMember = http.post(host.gw().node().adminToken(), "/api/v1/gateway/principals/" + bob.id() + "/capabilities",
      new JsonObject().put("capability", "admin"));
    assertThat(toMember.status()).isEqualTo(400);
    assertThat(toMember.body().getString("code")).isEqualTo("capability_not_grantable");
    HttpJson.Answer nobody = http.post(host.gw().node().adminToken(), "/api/v1/gateway/principals/" + UUID.randomUUID() + "/capabilities",
      new JsonObject().put("capability", "admin"));
    assertThat(nobody.status()).isEqualTo(404);
  }

  private static void assertNoAdminReach(PackHost.ToolAgent agent) {
    PackToolResult read = agent.run("x1", "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent").encode());
    assertThat(read.getOutputJson()).as("what admin_agent_messages read of alice's conversation").doesNotContain(SECRET);
    assertThat(read.getError()).contains("requires capabilities [admin]");
    assertThat(agent.toolNames()).as("tools in the Welcome").doesNotContainAnyElementsOf(ADMIN_TOOLS);

    String token = agent.welcome().getMcpToken();
    String session = mcp.session(token);
    assertThat(mcp.toolNames(token, session)).as("tools over MCP").doesNotContainAnyElementsOf(ADMIN_TOOLS);
    McpClient.Answer call = mcp.call(token, session, "admin_agent_messages", new JsonObject().put("agent_id", "alice-agent"));
    assertThat(call.body()).doesNotContain(SECRET);
    assertThat(call.json().getJsonObject("error").getString("message")).contains("requires capabilities [admin]");
  }

  private static Principal agentPrincipal(String name, Optional<UUID> owner) {
    return GatewayFixture.await(host.gw().node().runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT, name,
      PrincipalStatus.APPROVED, List.of(), Optional.empty(), owner));
  }

  private static PackHost.ToolAgent register(Principal p, String agentId, String... capabilities) {
    String token = GatewayFixture.await(host.gw().node().runtime().context().tokens().issue(p, Duration.ofHours(1))).token();
    RawAgent raw = host.gw().agent(token);
    RegisterAgent.Builder reg = RawAgent.registration(agentId).clearCapabilities().addAllCapabilities(List.of(capabilities));
    return new PackHost.ToolAgent(raw, raw.register(reg));
  }

  private static void grant(UUID principal, String capability) {
    HttpJson.Answer granted = http.post(host.gw().node().adminToken(), "/api/v1/gateway/principals/" + principal + "/capabilities",
      new JsonObject().put("capability", capability));
    assertThat(granted.status()).as(granted.body().encode()).isEqualTo(200);
    assertThat(granted.body().getBoolean("granted")).isTrue();
  }

  private static HttpResponse<Buffer> send(HttpMethod method, String path, String token) {
    return GatewayFixture.await(web.request(method, host.gw().node().httpPort(), "127.0.0.1", path)
      .putHeader("authorization", "Bearer " + token).send());
  }
}
