package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.SessionSocket;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.testing.RawHttp;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.conclave.gateway.support.SessionSocket.op;
import static dev.conclave.gateway.support.SessionSocket.userInput;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session socket ({@code GET /api/v1/sessions}) and the console's cookie, as issue 40's probe
 * found them: a read-only {@code bridge} cookie, sent by a page of any origin, opened the socket and
 * drove the agent ({@code user_input}, {@code exec_approval}, and for an admin {@code register_agent}
 * and {@code lifecycle_transition}); an {@code api} cookie did the same from another origin. The
 * upgrade is a request that changes state, proven by its Origin (browsers always send it and pages
 * cannot forge it): the cookie opens the socket only with an {@code api} token and the node's own
 * Origin. A program's bearer token needs no Origin.
 */
class SessionSocketOriginTest {

  private static final String AGENT = "so-agent";
  private static final String EVIL = "http://evil.example";

  private static GatewayFixture gw;
  private static Principal member;
  private static RawAgent agent;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    member = gw.newMember("so-member");
    agent = gw.connect(AGENT, gw.agentTokenOwnedBy("so-agent-principal", member.id()));
  }

  @AfterAll
  static void stop() {
    agent.close();
    gw.close();
  }

  @Test
  void aBridgeCookieFromAnotherOriginCannotReachTheAgent() {
    String cookie = login(token(member, TokenPurpose.BRIDGE));
    List<String> done = drive(Map.of("cookie", cookie, "origin", EVIL), false);
    assertThat(done).as("what a page of " + EVIL + " did with the member's read-only cookie").isEmpty();
    assertThat(agent.poll(500)).as("what the agent received").isNull();
  }

  @Test
  void anAdminsBridgeCookieCannotRegisterOrPauseAgents() {
    String cookie = login(token(admin(), TokenPurpose.BRIDGE));
    assertThat(drive(Map.of("cookie", cookie, "origin", EVIL), true)).isEmpty();
    assertThat(drive(Map.of("cookie", cookie, "origin", own()), true)).isEmpty();
  }

  @Test
  void aBridgeCookieCannotOpenTheSocketFromAnyOrigin() {
    String cookie = login(token(member, TokenPurpose.BRIDGE));
    assertThat(upgrade(Map.of("cookie", cookie, "origin", EVIL))).isEqualTo("refused 403 origin_not_allowed");
    assertThat(upgrade(Map.of("cookie", cookie, "origin", own()))).isEqualTo("refused 403 session_read_only");
    assertThat(upgrade(Map.of("cookie", cookie))).isEqualTo("refused 403 origin_required");
  }

  @Test
  void anApiCookieOpensTheSocketOnlyFromTheNodesOwnOrigin() {
    String cookie = login(token(member, TokenPurpose.API));
    // another site, another port of this host (same-site: SameSite=Strict sends the cookie), another
    // name for this host, an opaque origin, and what is no origin at all
    for (String origin : List.of(EVIL, "http://127.0.0.1:1", "http://localhost:" + gw.node().httpPort(), "null",
      "http://127.0.0.1:" + gw.node().httpPort() + ".evil.example", "https://127.0.0.1:" + gw.node().httpPort() + "/x", "garbage")) {
      assertThat(upgrade(Map.of("cookie", cookie, "origin", origin))).as(origin).isEqualTo("refused 403 origin_not_allowed");
    }
    assertThat(upgrade(Map.of("cookie", cookie))).isEqualTo("refused 403 origin_required");
    assertThat(upgrade(Map.of("cookie", cookie, "origin", own()))).isEqualTo("opened");
    assertThat(upgrade(Map.of("cookie", cookie, "origin", own().replace("http", "HTTP")))).isEqualTo("opened");
  }

  @Test
  void theNodesOwnPageDrivesTheAgentWithAnApiCookie() {
    String cookie = login(token(member, TokenPurpose.API));
    try (SessionSocket s = open(Map.of("cookie", cookie, "origin", own()))) {
      s.configure(AGENT);
      s.submit("own-1", userInput("from the console"));
      ServerMessage work = agent.next();
      assertThat(work.getSendMessage().getContent()).isEqualTo("from the console");
      agent.respond(work.getSendMessage().getRequestId(), dev.conclave.proto.coven.MessageResponse.newBuilder()
        .setDone(dev.conclave.proto.coven.Done.getDefaultInstance()));
      s.until("task_complete");
    }
  }

  @Test
  void aProgramsBearerTokenNeedsNoOrigin() {
    assertThat(upgrade(Map.of("authorization", "Bearer " + token(member, TokenPurpose.API)))).isEqualTo("opened");
    // a bearer token is no browser's ambient credential: its Origin is not what protects it
    assertThat(upgrade(Map.of("authorization", "Bearer " + token(member, TokenPurpose.API), "origin", EVIL))).isEqualTo("opened");
    assertThat(upgrade(Map.of("authorization", "Bearer " + token(member, TokenPurpose.BRIDGE)))).isEqualTo("refused 401 token_wrong_purpose");
  }

  // ---- helpers -----------------------------------------------------------------------------

  /**
   * Opens a socket with {@code headers} and, if the node lets it open, does what the probe did:
   * user_input to the member's agent, an exec_approval, and as an admin register_agent and
   * lifecycle_transition. Returns what succeeded.
   */
  private static List<String> drive(Map<String, String> headers, boolean asAdmin) {
    List<String> done = new ArrayList<>();
    SessionSocket s;
    try {
      s = SessionSocket.connect(gw.vertx(), gw.node().httpPort(), headers).await(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      return done;
    }
    try (s) {
      done.add("the upgrade succeeded");
      s.submit("cfg", op("configure_session").put("agent_id", AGENT));
      if ("session_configured".equals(type(s.next()))) {
        done.add("configure_session");
      }
      s.submit("u1", userInput("rm -rf /"));
      ServerMessage got = agent.poll(2000);
      if (got != null && got.hasSendMessage()) {
        done.add("user_input reached the agent: " + got.getSendMessage().getContent());
        agent.respond(got.getSendMessage().getRequestId(), dev.conclave.proto.coven.MessageResponse.newBuilder()
          .setDone(dev.conclave.proto.coven.Done.getDefaultInstance()));
      }
      s.submit("ap", op("exec_approval").put("id", "so-call").put("decision", "approved_for_session"));
      if (asAdmin) {
        s.submit("reg", op("register_agent").put("agent_id", "so-planted-" + System.nanoTime()));
        s.submit("life", op("lifecycle_transition").put("agent_id", AGENT).put("to", "Paused"));
      }
      for (JsonObject f; (f = s.poll(1500)) != null; ) {
        String t = type(f);
        if ("agent_registered".equals(t) || "lifecycle_event".equals(t) || "exec_approval_decision".equals(t)) {
          done.add(t);
        }
      }
      if (asAdmin) {
        // undo a pause so that the other tests keep a working agent
        try (SessionSocket bearer = SessionSocket.open(gw.vertx(), gw.node().httpPort(), gw.node().adminToken())) {
          bearer.submit("resume", op("lifecycle_transition").put("agent_id", AGENT).put("to", "Running"));
          bearer.poll(1000);
        }
      }
    }
    return done;
  }

  /** "opened", or "refused STATUS CODE". */
  private static String upgrade(Map<String, String> headers) {
    try {
      SessionSocket s = SessionSocket.connect(gw.vertx(), gw.node().httpPort(), headers).await(15, TimeUnit.SECONDS);
      s.close();
      return "opened";
    } catch (UpgradeRejectedException rejected) { // await throws the upgrade's own failure
      String body = rejected.getBody() == null ? "{}" : rejected.getBody().toString();
      String code;
      try {
        code = new JsonObject(body).getString("code");
      } catch (RuntimeException notJson) {
        code = body;
      }
      return "refused " + rejected.getStatus() + " " + code;
    } catch (Exception e) {
      throw new AssertionError("upgrade failed: " + e, e);
    }
  }

  private static SessionSocket open(Map<String, String> headers) {
    return GatewayFixture.await(SessionSocket.connect(gw.vertx(), gw.node().httpPort(), headers));
  }

  private static String type(JsonObject frame) {
    return frame.getJsonObject("msg").getString("type");
  }

  private static String own() {
    return "http://127.0.0.1:" + gw.node().httpPort();
  }

  private static Principal admin() {
    java.util.UUID id = GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(gw.node().adminToken())).principalId();
    return GatewayFixture.await(gw.node().runtime().context().principals().find(id)).orElseThrow();
  }

  private static String token(Principal p, TokenPurpose purpose) {
    return GatewayFixture.await(gw.node().runtime().context().tokens().issue(p, Duration.ofHours(1), purpose)).token();
  }

  /** The console's login, as a program makes it (JSON, no Origin); returns the cookie. */
  private static String login(String token) {
    RawHttp.Response r = RawHttp.send(gw.node().httpPort(), "POST", "/auth/session", Map.of("content-type", "application/json"),
      new JsonObject().put("token", token).toBuffer().getBytes(), 15_000);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String set = r.header("set-cookie");
    return set.substring(0, set.indexOf(';'));
  }
}
