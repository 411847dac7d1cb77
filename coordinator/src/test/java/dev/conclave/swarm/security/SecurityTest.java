package dev.conclave.swarm.security;

import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import dev.conclave.platform.testing.Await;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Authentication and authorization of the swarm API: HMAC-signed requests (signed here with the
 * documented recipe, independently of the coordinator's code), bearer principals bound to the
 * agents they registered, admin-only endpoints.
 */
class SecurityTest {

  private static SwarmNode swarm;
  private static SwarmApi admin;
  private static SwarmApi member;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    admin = swarm.api();
    member = admin.as(swarm.memberToken("swarm-member"));
  }

  @AfterAll
  static void stop() {
    member.close();
    swarm.close();
  }

  private static String newAgent(SwarmApi as, String skill) {
    String id = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    Reply reply = as.register(id, List.of(skill));
    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    return id;
  }

  /** The documented recipe: hex(HMAC-SHA256(secret, ts \n METHOD \n target \n hex(sha256(body)))). */
  private static Reply signed(String agent, String secret, HttpMethod method, String target, JsonObject body, Instant at) {
    return admin.signed(agent, secret, method, target, body, at);
  }

  private static Reply signedHeartbeat(String agent, String secret, Instant at) throws Exception {
    return signed(agent, secret, HttpMethod.POST, "/api/v1/agents/" + agent + "/heartbeat",
      v1().put("agentId", agent).put("status", "idle"), at);
  }

  @Test
  void aSignedRequestIsAcceptedWithoutABearerToken() throws Exception {
    String skill = "s-" + UUID.randomUUID().toString().substring(0, 6);
    String agent = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = member.register(agent, List.of(skill)).json().getString("agentSecret");
    admin.createTasks(new JsonArray().add(new JsonObject().put("id", "t-" + skill).put("title", "x")
      .put("requiredSkills", new JsonArray().add(skill))));

    Reply claim = signed(agent, secret, HttpMethod.POST, "/api/v1/tasks/claim", v1().put("agentId", agent), swarm.clock().instant());
    assertThat(claim.status()).as(claim.toString()).isEqualTo(200);
    assertThat(claim.json().getJsonObject("task").getString("id")).isEqualTo("t-" + skill);

    Reply receive = signed(agent, secret, HttpMethod.GET, "/api/v1/messages?protocolVersion=1.0&agentId=" + agent, null,
      swarm.clock().instant().plusMillis(1));
    assertThat(receive.status()).as(receive.toString()).isEqualTo(200);
  }

  @Test
  void aWrongSecretOrAnAlteredRequestIsRejected() throws Exception {
    String agent = newAgent(member, "x");
    Reply wrong = signedHeartbeat(agent, "not-the-secret", swarm.clock().instant());
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.code()).isEqualTo("signature_invalid");
    assertThat(wrong.contentType()).isEqualTo("application/problem+json");

    String secret = member.register(newAgentId(), List.of("x")).json().getString("agentSecret");
    String ts = swarm.clock().instant().toString();
    byte[] body = v1().put("agentId", agent).put("status", "idle").toBuffer().getBytes();
    String signature = SwarmApi.signature(secret, ts, "POST", "/api/v1/agents/" + agent + "/heartbeat", body);
    Reply altered = Await.await(admin.send(HttpMethod.POST, "/api/v1/agents/" + agent + "/heartbeat",
      v1().put("agentId", agent).put("status", "busy").toBuffer(),
      Map.of("X-Swarm-Agent", agent, "X-Swarm-Timestamp", ts, "X-Swarm-Signature", signature)));
    assertThat(altered.status()).isEqualTo(401);
  }

  private static String newAgentId() {
    return "agent-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void badSignaturesWriteNothingAndOnlyVerifiedOnesAreRemembered() throws Exception {
    String agent = newAgentId();
    String secret = member.register(agent, List.of("x")).json().getString("agentSecret");
    for (int i = 0; i < 50; i++) {
      Reply forged = signedHeartbeat(agent, "not-the-secret", swarm.clock().instant().plusMillis(i));
      assertThat(forged.status()).isEqualTo(401);
    }
    assertThat(seenSignatures(agent)).as("rows written by requests whose signature did not match").isZero();
    assertThat(signedHeartbeat(agent, secret, swarm.clock().instant()).status()).isEqualTo(200);
    assertThat(seenSignatures(agent)).as("the verified signature, kept against replay").isEqualTo(1);
  }

  private static long seenSignatures(String agent) throws Exception {
    var url = swarm.database();
    try (var c = java.sql.DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
         var st = c.prepareStatement("SELECT count(*) FROM swarm.seen_signatures WHERE agent_id = ?")) {
      st.setString(1, agent);
      try (var rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void aTimestampOutsideTheWindowIsRejected() throws Exception {
    String agent = newAgentId();
    String secret = member.register(agent, List.of("x")).json().getString("agentSecret");

    Reply late = signedHeartbeat(agent, secret, swarm.clock().instant().minus(Duration.ofMinutes(5)).minusSeconds(1));
    assertThat(late.status()).isEqualTo(401);
    assertThat(late.code()).isEqualTo("signature_expired");
    Reply early = signedHeartbeat(agent, secret, swarm.clock().instant().plus(Duration.ofMinutes(6)));
    assertThat(early.code()).isEqualTo("signature_expired");
    assertThat(signedHeartbeat(agent, secret, swarm.clock().instant().minus(Duration.ofMinutes(4))).status()).isEqualTo(200);
  }

  @Test
  void aSignatureCannotBeReplayed() throws Exception {
    String agent = newAgentId();
    String secret = member.register(agent, List.of("x")).json().getString("agentSecret");
    Instant at = swarm.clock().instant();

    assertThat(signedHeartbeat(agent, secret, at).status()).isEqualTo(200);
    Reply replay = signedHeartbeat(agent, secret, at);

    assertThat(replay.status()).isEqualTo(401);
    assertThat(replay.code()).isEqualTo("signature_replayed");
    assertThat(signedHeartbeat(agent, secret, at.plusMillis(1)).status()).isEqualTo(200);
  }

  @Test
  void aSignedAgentActsOnlyAsItself() throws Exception {
    String agent = newAgentId();
    String secret = member.register(agent, List.of("x")).json().getString("agentSecret");
    String other = newAgent(member, "x");

    Reply reply = signed(agent, secret, HttpMethod.POST, "/api/v1/tasks/claim", v1().put("agentId", other), swarm.clock().instant());

    assertThat(reply.status()).isEqualTo(403);
    assertThat(reply.code()).isEqualTo("agent_mismatch");
    Reply admin = signed(agent, secret, HttpMethod.POST, "/api/v1/tasks", new JsonObject().put("title", "t"), swarm.clock().instant().plusMillis(1));
    assertThat(admin.status()).as("a signed agent is no admin").isEqualTo(403);
  }

  @Test
  void registeringNeedsABearerTokenAndRotatesTheSecret() throws Exception {
    String agent = newAgentId();
    String first = member.register(agent, List.of("x")).json().getString("agentSecret");
    JsonObject body = v1().put("agent", SwarmApi.agentSpec(agent, List.of("x")));

    Reply signedRegister = signed(agent, first, HttpMethod.POST, "/api/v1/agents/register", body, swarm.clock().instant());
    assertThat(signedRegister.status()).isEqualTo(401);
    assertThat(signedRegister.code()).isEqualTo("bearer_required");

    swarm.clock().advance(Duration.ofMinutes(3));
    String second = member.register(agent, List.of("x")).json().getString("agentSecret");
    assertThat(second).isNotEqualTo(first);
    assertThat(signedHeartbeat(agent, first, swarm.clock().instant()).code()).isEqualTo("signature_invalid");
    assertThat(signedHeartbeat(agent, second, swarm.clock().instant()).status()).isEqualTo(200);
  }

  @Test
  void aBearerPrincipalActsOnlyForTheAgentsItRegistered() {
    String agent = newAgent(member, "x");
    try (SwarmApi stranger = admin.as(swarm.memberToken("stranger"))) {
      Reply reply = stranger.heartbeat(agent, "idle");
      assertThat(reply.status()).isEqualTo(403);
      assertThat(reply.code()).isEqualTo("agent_not_owned");

      swarm.clock().advance(Duration.ofMinutes(3));
      assertThat(stranger.register(agent, List.of("x")).code()).as("nor take a stale one over").isEqualTo("agent_not_owned");
    }
    assertThat(admin.register(agent, List.of("x")).status()).as("an admin may act for any agent").isEqualTo(200);
    assertThat(member.heartbeat(agent, "idle").status()).as("and the agent still belongs to its owner").isEqualTo(200);
  }

  @Test
  void aDisabledPrincipalsSwarmAgentsCanNoLongerSign() throws Exception {
    String token = swarm.memberToken("soon-disabled");
    var context = swarm.node().runtime().context();
    UUID principal = await(context.tokens().authenticate(token)).principalId();
    String agent = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    String secret;
    try (SwarmApi owner = admin.as(token)) {
      secret = owner.register(agent, List.of("x")).json().getString("agentSecret");
    }
    assertThat(signedHeartbeat(agent, secret, swarm.clock().instant()).status()).isEqualTo(200);

    await(context.principals().setStatus(principal, PrincipalStatus.REVOKED));
    await(context.tokens().revokePrincipal(principal, "disabled by the test"));

    Reply refused = signedHeartbeat(agent, secret, swarm.clock().instant().plusMillis(1));
    assertThat(refused.status()).as(refused.toString()).isEqualTo(401);
    assertThat(refused.code()).isEqualTo("signer_revoked");
  }

  @Test
  void managementEndpointsNeedAnAdmin() {
    Reply create = member.post("/api/v1/tasks", new JsonObject().put("title", "t"));
    assertThat(create.status()).isEqualTo(403);
    assertThat(create.code()).isEqualTo("admin_required");
    assertThat(member.get("/api/v1/tasks").status()).isEqualTo(403);
    assertThat(member.get("/api/v1/agents").status()).isEqualTo(403);
    assertThat(member.post("/api/v1/agents/x/commands", new JsonObject().put("type", "PING")).status()).isEqualTo(403);
    assertThat(member.get("/api/v1/learnings?q=anything").status()).isEqualTo(200);
  }

  @Test
  void requestsWithoutCredentialsAreRejected() {
    try (SwarmApi anonymous = admin.as(null)) {
      Reply reply = anonymous.claim("whoever");
      assertThat(reply.status()).isEqualTo(401);
      assertThat(reply.code()).isEqualTo("token_missing");
    }
  }
}
