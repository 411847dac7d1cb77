package dev.conclave.node.bridge;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event-bus bridge without a browser: who may subscribe to what (docs/dashboard.md), that
 * nothing reaches a socket that was refused, the console's cookie and its CSRF rule, revocation
 * reaching open sockets, and the slow-consumer rule.
 */
class BridgeTest {

  private static final String AGENT_ID = "br-agent";

  private static TestNode node;
  private static Vertx vertx;
  private static WebClient http;
  private static Principal owner;
  private static String ownerToken;
  private static String strangerToken;
  private static RawAgent agent;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole()).start();
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
    owner = principal(PrincipalType.CLIENT, "br-owner", List.of(Roles.MEMBER), Optional.empty());
    ownerToken = token(owner, TokenPurpose.API);
    strangerToken = token(principal(PrincipalType.CLIENT, "br-stranger", List.of(Roles.MEMBER), Optional.empty()), TokenPurpose.API);
    GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort());
    agent = RawAgent.open(grpc.client(), grpc.address(),
      token(principal(PrincipalType.AGENT, "br-agent-principal", List.of(), Optional.of(owner.id())), TokenPurpose.API));
    agent.register(RawAgent.registration(AGENT_ID));
  }

  @AfterAll
  static void stop() {
    agent.close();
    vertx.close();
    node.close();
  }

  @Test
  void a_socket_without_credentials_is_refused_and_gets_nothing() {
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
      socket.register(Addresses.PRESENCE_EVENTS);
      JsonObject refusal = socket.awaitRefusal(Addresses.PRESENCE_EVENTS);
      assertThat(refusal.getInteger("failureCode")).isEqualTo(401);
      assertThat(refusal.getString("message")).contains("POST /auth/session");
      publish(Addresses.PRESENCE_EVENTS, new JsonObject().put("agentId", "someone").put("connected", true));
      assertThat(socket.poll(BridgeSocketClient.event(Addresses.PRESENCE_EVENTS), 1.5)).isEmpty();
    }
  }

  @Test
  void a_logged_in_member_follows_presence_and_the_swarm_but_not_admin_addresses() {
    String cookie = login(ownerToken);
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(cookie));
         BridgeSocketClient stranger = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(strangerToken)))) {
      socket.register(Addresses.PRESENCE_EVENTS);
      socket.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      stranger.register(Addresses.PRESENCE_EVENTS);
      stranger.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      socket.register(Addresses.SWARM_EVENTS);
      socket.awaitSubscribed(Addresses.SWARM_EVENTS);
      socket.register(Addresses.PACK_EVENTS);
      assertThat(socket.awaitRefusal(Addresses.PACK_EVENTS).getInteger("failureCode")).isEqualTo(403);

      GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort());
      try (RawAgent another = RawAgent.open(grpc.client(), grpc.address(),
        token(principal(PrincipalType.AGENT, "br-second", List.of(), Optional.of(owner.id())), TokenPurpose.API))) {
        another.register(RawAgent.registration("br-second-agent"));
        JsonObject event = socket.await(f -> BridgeSocketClient.event(Addresses.PRESENCE_EVENTS).test(f)
          && "br-second-agent".equals(f.getJsonObject("body").getString("agentId")), 5);
        assertThat(event.getJsonObject("body").getBoolean("connected")).isTrue();
        // a member sees the presence of the agents it may act on, as ListAgents lists them
        assertThat(stranger.poll(BridgeSocketClient.event(Addresses.PRESENCE_EVENTS), 1.5)).isEmpty();
      }
      publish(Addresses.PACK_EVENTS, new JsonObject().put("event", "registered").put("packId", "p"));
      assertThat(socket.poll(BridgeSocketClient.event(Addresses.PACK_EVENTS), 1)).isEmpty();
    }
  }

  @Test
  void the_sockjs_transport_browsers_use_is_authenticated_by_the_cookie_too() throws Exception {
    // SockJS framing over its WebSocket transport, as sockjs-client speaks it: "o", then a["<frame>", …]
    java.util.concurrent.LinkedBlockingQueue<String> received = new java.util.concurrent.LinkedBlockingQueue<>();
    var client = vertx.createWebSocketClient();
    // the handler is set before the socket connects: set in the connect's callback, the node's "o" could
    // come first and be lost (seen once in a full run: no "o" in 10 s)
    var ws = client.webSocket().textMessageHandler(received::add)
      .connect(new io.vertx.core.http.WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.httpPort())
        .setURI("/eventbus/123/" + UUID.randomUUID().toString().substring(0, 8) + "/websocket").addHeader("cookie", login(ownerToken)))
      .await(10, TimeUnit.SECONDS);
    try {
      assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("o");
      ws.writeTextMessage(new io.vertx.core.json.JsonArray().add(new JsonObject().put("type", "register")
        .put("address", Addresses.PRESENCE_EVENTS).encode()).encode());
      String frame = received.poll(10, TimeUnit.SECONDS);
      assertThat(frame).startsWith("a[");
      JsonObject marker = new JsonObject(new io.vertx.core.json.JsonArray(frame.substring(1)).getString(0));
      assertThat(marker.getString("address")).isEqualTo(Addresses.PRESENCE_EVENTS);
      assertThat(marker.getJsonObject("body").getBoolean("subscribed")).isTrue();
    } finally {
      ws.close();
      client.close();
    }
  }

  @Test
  void a_page_of_another_origin_cannot_ride_on_the_session_cookie() {
    String cookie = login(ownerToken);
    try (BridgeSocketClient foreign = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(cookie),
           Optional.of("http://evil.example:8080"));
         BridgeSocketClient own = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(cookie),
           Optional.of("http://127.0.0.1:" + node.httpPort()))) {
      foreign.register(Addresses.PRESENCE_EVENTS);
      assertThat(foreign.awaitRefusal(Addresses.PRESENCE_EVENTS).getInteger("failureCode")).isEqualTo(401);
      own.register(Addresses.PRESENCE_EVENTS);
      own.awaitSubscribed(Addresses.PRESENCE_EVENTS);
    }
  }

  @Test
  void admin_addresses_are_for_admins_and_a_token_may_come_in_the_register_frame() {
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
      socket.register(Addresses.PACK_EVENTS, node.adminToken());
      socket.awaitSubscribed(Addresses.PACK_EVENTS);
      publish(Addresses.PACK_EVENTS, new JsonObject().put("event", "registered").put("packId", "p1"));
      assertThat(socket.await(BridgeSocketClient.event(Addresses.PACK_EVENTS), 5).getJsonObject("body").getString("packId")).isEqualTo("p1");
      socket.register("conclave.events.nothing-here", node.adminToken());
      assertThat(socket.awaitRefusal("conclave.events.nothing-here").getInteger("failureCode")).isEqualTo(404);
      socket.register(Addresses.gatewayNode("n1"), node.adminToken());
      assertThat(socket.awaitRefusal(Addresses.gatewayNode("n1")).getInteger("failureCode")).isEqualTo(404);
    }
  }

  @Test
  void a_conversation_is_followed_only_by_those_who_may_read_it_and_lives_up_to_its_ledger() {
    String address = Addresses.dashboardConversation(AGENT_ID);
    try (BridgeSocketClient stranger = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(strangerToken)));
         BridgeSocketClient ownerSocket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(ownerToken)))) {
      stranger.register(address);
      assertThat(stranger.awaitRefusal(address).getInteger("failureCode")).isEqualTo(403);
      ownerSocket.register(address);
      ownerSocket.awaitSubscribed(address);

      String cookie = login(ownerToken);
      HttpResponse<Buffer> sent = call(HttpMethod.POST, "/api/v1/gateway/conversations/" + AGENT_ID + "/messages", cookie, true,
        new JsonObject().put("content", "hello from the console"));
      assertThat(sent.statusCode()).as(sent.bodyAsString()).isEqualTo(202);
      JsonObject live = ownerSocket.await(BridgeSocketClient.event(address), 5).getJsonObject("body");
      long seq = live.getLong("seq");
      assertThat(live.getJsonObject("event").getJsonObject("event").getString("text")).isEqualTo("hello from the console");
      assertThat(stranger.poll(BridgeSocketClient.event(address), 1)).isEmpty();

      // the agents list says where the agent is and what it works on
      String requestId = sent.bodyAsJsonObject().getString("requestId");
      JsonObject listed = null;
      for (int i = 0; i < 50 && (listed == null || !requestId.equals(listed.getString("requestInFlight"))); i++) {
        listed = call(HttpMethod.GET, "/api/v1/gateway/agents", cookie, false, null).bodyAsJsonObject().getJsonArray("agents").stream()
          .map(a -> (JsonObject) a).filter(a -> AGENT_ID.equals(a.getString("agentId"))).findFirst().orElseThrow();
        sleep(100);
      }
      assertThat(listed.getString("requestInFlight")).isEqualTo(requestId);
      assertThat(listed.getBoolean("connected")).isTrue();
      assertThat(listed.getString("node")).isEqualTo(node.runtime().context().nodeId());

      // the ledger over HTTP gives the same event, forwards (catch up) and backwards (scroll back)
      JsonObject after = call(HttpMethod.GET, "/api/v1/gateway/conversations/" + AGENT_ID + "/events?after=" + (seq - 1), cookie, false, null)
        .bodyAsJsonObject();
      assertThat(after.getJsonArray("events").getJsonObject(0)).isEqualTo(live);
      JsonObject newest = call(HttpMethod.GET, "/api/v1/gateway/conversations/" + AGENT_ID + "/events?limit=1", cookie, false, null)
        .bodyAsJsonObject();
      assertThat(newest.getJsonArray("events").getJsonObject(0).getLong("seq")).isEqualTo(seq);
      assertThat(call(HttpMethod.GET, "/api/v1/gateway/conversations/" + AGENT_ID + "/events", login(strangerToken), false, null)
        .statusCode()).isEqualTo(403);
    }
  }

  @Test
  void the_cluster_view_lists_the_node_with_its_agents() {
    JsonObject nodes = call(HttpMethod.GET, "/api/v1/gateway/nodes", login(strangerToken), false, null).bodyAsJsonObject();
    JsonObject self = nodes.getJsonArray("nodes").getJsonObject(0);
    assertThat(self.getString("node")).isEqualTo(node.runtime().context().nodeId());
    assertThat(self.getString("status")).isEqualTo("up");
    assertThat(self.getInteger("agents")).isGreaterThanOrEqualTo(1);
    assertThat(java.time.Instant.parse(self.getString("startedAt"))).isBefore(java.time.Instant.now());
  }

  @Test
  void browsers_only_subscribe() {
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(node.adminToken())))) {
      socket.frame(new JsonObject().put("type", "send").put("address", Addresses.GATEWAY_TOOLS).put("body", new JsonObject().put("op", "x")));
      socket.await(f -> "err".equals(f.getString("type")), 5);
      socket.frame(new JsonObject().put("type", "publish").put("address", Addresses.SWARM_EVENTS).put("body", new JsonObject()));
      socket.await(f -> "err".equals(f.getString("type")), 5);
    }
  }

  @Test
  void a_revoked_token_loses_its_sockets_within_seconds() {
    Principal member = principal(PrincipalType.CLIENT, "br-revoked", List.of(Roles.MEMBER), Optional.empty());
    TokenService.IssuedToken issued = GatewayFixture.await(node.runtime().context().tokens().issue(member, Duration.ofHours(1)));
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(issued.token())))) {
      socket.register(Addresses.PRESENCE_EVENTS);
      socket.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      HttpResponse<Buffer> revoked = request(HttpMethod.DELETE, "/api/v1/gateway/tokens/" + issued.tokenId())
        .bearerTokenAuthentication(node.adminToken()).send().await();
      assertThat(revoked.statusCode()).as(revoked.bodyAsString()).isEqualTo(200);
      BridgeSocketClient.Closed closed = socket.awaitClosed(5);
      assertThat(closed.status()).isEqualTo((short) 4001);
      assertThat(closed.reason()).contains("revoked");
    }
  }

  @Test
  void a_disabled_principal_loses_its_sockets_within_seconds() {
    Principal member = principal(PrincipalType.CLIENT, "br-disabled", List.of(Roles.MEMBER), Optional.empty());
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(token(member, TokenPurpose.API))))) {
      socket.register(Addresses.SWARM_EVENTS);
      socket.awaitSubscribed(Addresses.SWARM_EVENTS);
      HttpResponse<Buffer> disabled = request(HttpMethod.POST, "/api/v1/gateway/principals/" + member.id() + "/disable")
        .bearerTokenAuthentication(node.adminToken()).sendJsonObject(new JsonObject()).await();
      assertThat(disabled.statusCode()).as(disabled.bodyAsString()).isEqualTo(200);
      BridgeSocketClient.Closed closed = socket.awaitClosed(5);
      assertThat(closed.status()).isEqualTo((short) 4001);
    }
  }

  @Test
  void refusals_are_counted() {
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(strangerToken)))) {
      socket.register(Addresses.PACK_EVENTS);
      socket.awaitRefusal(Addresses.PACK_EVENTS);
    }
    String metrics = request(HttpMethod.GET, "/metrics").send().await().bodyAsString();
    assertThat(metrics).containsPattern("conclave_bridge_refusals_total\\{[^}]*reason=\"forbidden\"[^}]*} [1-9]");
  }

  /**
   * Frames the bridge cannot take are answered (an unknown type) or end the socket (one over the
   * message limit, 1009), and the log says nothing at ERROR about a client's mistake: Vert.x's own
   * bridge logged both at ERROR (with a stack) and threw a NullPointerException on the next frame.
   */
  @Test
  void malformed_frames_are_refused_without_an_error_in_the_log() {
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines = new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    root.addAppender(lines);
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(ownerToken)))) {
      socket.frame(new JsonObject().put("type", "subscribe-all").put("address", Addresses.SWARM_EVENTS));
      assertThat(socket.await(f -> "err".equals(f.getString("type")), 5).getString("body")).isEqualTo("invalid_type");
      // the socket still serves
      socket.register(Addresses.SWARM_EVENTS);
      socket.awaitSubscribed(Addresses.SWARM_EVENTS);
      socket.ws.writeTextMessage("{\"type\":\"register\",\"address\":\"" + "z".repeat(4_300_000) + "\"}");
      socket.register(Addresses.SWARM_EVENTS);
      assertThat(socket.awaitClosed(10).status()).isEqualTo((short) 1009);
      sleep(500);
    } finally {
      root.detachAppender(lines);
    }
    assertThat(lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.ERROR) || e.getThrowableProxy() != null)
      .map(e -> e.getLoggerName() + " " + e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName())))
      .isEmpty();
  }

  @Test
  void a_socket_that_does_not_read_is_closed_instead_of_filling_memory() {
    try (StalledReader socket = new StalledReader(node.httpPort(), login(ownerToken), Addresses.SWARM_EVENTS)) {
      socket.stall();
      String filler = "x".repeat(16 * 1024);
      // 48 MiB for a socket that reads nothing: far beyond the kernel's buffers and the node's bound
      for (int i = 0; i < 3000; i++) {
        publish(Addresses.SWARM_EVENTS, new JsonObject().put("kind", "task").put("event", "progress").put("i", i).put("pad", filler));
      }
      StalledReader.Closed closed = socket.drainUntilClosed(30);
      assertThat(closed.status()).isEqualTo(4008);
      assertThat(closed.reason()).isEqualTo("slow consumer");
    }
    // the node carries on serving everyone else
    assertThat(request(HttpMethod.GET, "/health/ready").send().await().statusCode()).isEqualTo(200);
  }

  @Test
  void the_session_cookie_is_httponly_strict_and_its_changes_need_the_csrf_header() {
    HttpResponse<Buffer> login = request(HttpMethod.POST, "/auth/session").sendJsonObject(new JsonObject().put("token", ownerToken)).await();
    assertThat(login.statusCode()).isEqualTo(200);
    String setCookie = login.getHeader("set-cookie");
    assertThat(setCookie).startsWith("conclave_session=").contains("HttpOnly").contains("SameSite=Strict").contains("Path=/");
    assertThat(login.bodyAsJsonObject().getString("principalId")).isEqualTo(owner.id().toString());
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));

    assertThat(request(HttpMethod.GET, "/auth/session").putHeader("cookie", cookie).send().await().bodyAsJsonObject()
      .getString("displayName")).isEqualTo(owner.displayName());
    assertThat(request(HttpMethod.GET, "/auth/session").send().await().statusCode()).isEqualTo(401);
    HttpResponse<Buffer> bad = request(HttpMethod.POST, "/auth/session").sendJsonObject(new JsonObject().put("token", "garbage")).await();
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(bad.getHeader("set-cookie")).isNull();
    assertThat(request(HttpMethod.POST, "/auth/session").putHeader("content-type", "application/json").sendBuffer(Buffer.buffer("{not json"))
      .await().statusCode()).isEqualTo(400);

    String path = "/api/v1/gateway/conversations/" + AGENT_ID + "/messages";
    JsonObject message = new JsonObject().put("content", "csrf?");
    HttpResponse<Buffer> withoutHeader = call(HttpMethod.POST, path, cookie, false, message);
    assertThat(withoutHeader.statusCode()).isEqualTo(403);
    assertThat(withoutHeader.bodyAsJsonObject().getString("code")).isEqualTo("csrf_header_required");
    assertThat(call(HttpMethod.POST, path, cookie, true, message).statusCode()).isEqualTo(202);
    assertThat(call(HttpMethod.GET, "/api/v1/gateway/agents", cookie, false, null).statusCode()).isEqualTo(200);

    // a bridge token's session reads and subscribes, never acts
    String bridgeCookie = login(token(owner, TokenPurpose.BRIDGE));
    HttpResponse<Buffer> readOnly = call(HttpMethod.POST, path, bridgeCookie, true, message);
    assertThat(readOnly.statusCode()).isEqualTo(403);
    assertThat(readOnly.bodyAsJsonObject().getString("code")).isEqualTo("session_read_only");
    assertThat(call(HttpMethod.GET, "/api/v1/gateway/agents", bridgeCookie, false, null).statusCode()).isEqualTo(200);
    assertThat(request(HttpMethod.DELETE, "/auth/session").putHeader("cookie", cookie).send().await().getHeader("set-cookie"))
      .contains("Max-Age=0");
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void publish(String address, JsonObject body) {
    node.runtime().context().vertx().eventBus().publish(address, body);
  }

  private static String login(String token) {
    HttpResponse<Buffer> login = request(HttpMethod.POST, "/auth/session").sendJsonObject(new JsonObject().put("token", token)).await();
    assertThat(login.statusCode()).as(login.bodyAsString()).isEqualTo(200);
    String setCookie = login.getHeader("set-cookie");
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  private static HttpResponse<Buffer> call(HttpMethod method, String path, String cookie, boolean csrf, JsonObject body) {
    HttpRequest<Buffer> request = request(method, path).putHeader("cookie", cookie);
    if (csrf) {
      request.putHeader("X-Conclave-Csrf", "1");
    }
    return (body == null ? request.send() : request.sendJsonObject(body)).await();
  }

  private static HttpRequest<Buffer> request(HttpMethod method, String path) {
    return http.request(method, node.httpPort(), "127.0.0.1", path).timeout(TimeUnit.SECONDS.toMillis(20));
  }

  private static Principal principal(PrincipalType type, String name, List<String> roles, Optional<UUID> owner) {
    return GatewayFixture.await(node.runtime().context().principals().create(UUID.randomUUID(), type,
      name + "-" + UUID.randomUUID().toString().substring(0, 8), PrincipalStatus.APPROVED, roles, Optional.empty(), owner));
  }

  private static String token(Principal p, TokenPurpose purpose) {
    return GatewayFixture.await(node.runtime().context().tokens().issue(p, Duration.ofHours(1), purpose)).token();
  }
}
