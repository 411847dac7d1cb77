package dev.conclave.node.bridge;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.bridge.EventBusBridge;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What one principal may hold open on the bridge: a socket on which nobody authenticates closes
 * after {@code CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS}, and a principal's sockets count against
 * {@code CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL}, whether they authenticate by cookie or by token.
 */
class BridgeLimitsTest {

  private static final int MAX_CONNECTIONS = 2;

  private static TestNode node;
  private static Vertx vertx;
  private static WebClient http;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole())
      .env("CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS", "1")
      .env("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", String.valueOf(MAX_CONNECTIONS))
      .start();
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() {
    vertx.close();
    node.close();
  }

  @Test
  void a_socket_nobody_authenticates_on_is_closed_after_the_timeout() {
    try (BridgeSocketClient idle = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty());
         BridgeSocketClient refusedOnly = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
      refusedOnly.register(Addresses.PRESENCE_EVENTS, "not-a-token");
      assertThat(refusedOnly.awaitRefusal(Addresses.PRESENCE_EVENTS).getInteger("failureCode")).isEqualTo(401);
      assertThat(idle.awaitClosed(10).status()).isEqualTo(EventBusBridge.CLOSE_UNAUTHENTICATED);
      assertThat(refusedOnly.awaitClosed(10).status()).isEqualTo(EventBusBridge.CLOSE_UNAUTHENTICATED);
    }
  }

  @Test
  void an_authenticated_socket_outlives_the_timeout() throws InterruptedException {
    String token = token(member("bl-stays"));
    try (BridgeSocketClient socket = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
      socket.register(Addresses.PRESENCE_EVENTS, token);
      socket.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      Thread.sleep(2_500);
      socket.register(Addresses.SWARM_EVENTS, token);
      socket.awaitSubscribed(Addresses.SWARM_EVENTS);
    }
  }

  @Test
  void sockets_beyond_the_principals_limit_are_refused_until_one_closes() {
    Principal member = member("bl-many");
    String token = token(member);
    List<BridgeSocketClient> open = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        BridgeSocketClient s = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty());
        open.add(s);
        s.register(Addresses.PRESENCE_EVENTS, token);
        s.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      }
      // by token: the subscription is refused (the socket holds nothing, and closes as unauthenticated)
      try (BridgeSocketClient extra = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
        extra.register(Addresses.PRESENCE_EVENTS, token);
        JsonObject refusal = extra.awaitRefusal(Addresses.PRESENCE_EVENTS);
        assertThat(refusal.getInteger("failureCode")).isEqualTo(429);
        assertThat(refusal.getString("message")).contains("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL");
      }
      // by cookie: the socket is closed as it opens
      try (BridgeSocketClient extra = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.of(login(token)))) {
        assertThat(extra.awaitClosed(10).status()).isEqualTo(EventBusBridge.CLOSE_TOO_MANY);
      }
      // the same socket subscribing again as the same principal is not counted twice
      open.get(0).register(Addresses.SWARM_EVENTS, token);
      open.get(0).awaitSubscribed(Addresses.SWARM_EVENTS);
      // another principal is not affected
      try (BridgeSocketClient other = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty())) {
        other.register(Addresses.PRESENCE_EVENTS, token(member("bl-other")));
        other.awaitSubscribed(Addresses.PRESENCE_EVENTS);
      }
      // a closed socket frees its place
      open.remove(0).close();
      long deadline = System.currentTimeMillis() + 5_000;
      while (true) {
        BridgeSocketClient again = BridgeSocketClient.connect(vertx, node.httpPort(), Optional.empty());
        open.add(again);
        again.register(Addresses.PRESENCE_EVENTS, token);
        JsonObject answer = again.await(f -> Addresses.PRESENCE_EVENTS.equals(f.getString("address")), 10);
        if ("rec".equals(answer.getString("type")) || System.currentTimeMillis() > deadline) {
          assertThat(answer.getString("type")).as("the freed place taken: %s", answer).isEqualTo("rec");
          break;
        }
        open.remove(open.size() - 1).close();
        sleepQuietly(100);
      }
    } finally {
      open.forEach(BridgeSocketClient::close);
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String login(String token) {
    HttpResponse<Buffer> login = http.request(HttpMethod.POST, node.httpPort(), "127.0.0.1", "/auth/session")
      .sendJsonObject(new JsonObject().put("token", token)).await();
    assertThat(login.statusCode()).as(login.bodyAsString()).isEqualTo(200);
    String setCookie = login.getHeader("set-cookie");
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  private static Principal member(String name) {
    return GatewayFixture.await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.CLIENT,
      name + "-" + UUID.randomUUID().toString().substring(0, 8), PrincipalStatus.APPROVED, List.of(Roles.MEMBER), Optional.empty(),
      Optional.empty()));
  }

  private static String token(Principal p) {
    return GatewayFixture.await(node.runtime().context().tokens().issue(p, Duration.ofHours(1), TokenPurpose.API)).token();
  }
}
