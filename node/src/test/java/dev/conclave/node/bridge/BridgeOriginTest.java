package dev.conclave.node.bridge;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.testing.RawHttp;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge's half of the browser rules: the session cookie counts on a bridge socket only when the
 * request that opens it carries the node's own {@code Origin}, as on every WebSocket. A page of
 * another origin that is still same-site (another port, a sibling name: SameSite=Strict sends the
 * cookie there) must not read the event bus with the user's cookie; nor may a request without an
 * Origin, which no browser's WebSocket makes but SockJS's script and iframe transports (JSONP,
 * htmlfile, EventSource) do.
 */
class BridgeOriginTest {

  private static TestNode node;
  private static Vertx vertx;
  private static String cookie;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new GatewayRole()).start();
    vertx = Vertx.vertx();
    Principal member = GatewayFixture.await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.CLIENT,
      "bo-member", PrincipalStatus.APPROVED, List.of(Roles.MEMBER), Optional.empty()));
    cookie = login(GatewayFixture.await(node.runtime().context().tokens().issue(member, Duration.ofHours(1), TokenPurpose.API)).token());
  }

  @AfterAll
  static void stop() {
    vertx.close();
    node.close();
  }

  @Test
  void theCookieCountsOnlyWithTheNodesOwnOrigin() {
    try (BridgeSocketClient none = BridgeSocketClient.withHeaders(vertx, node.httpPort(), Map.of("cookie", cookie));
         BridgeSocketClient sameSite = BridgeSocketClient.withHeaders(vertx, node.httpPort(),
           Map.of("cookie", cookie, "origin", "http://127.0.0.1:1"));
         BridgeSocketClient own = BridgeSocketClient.withHeaders(vertx, node.httpPort(),
           Map.of("cookie", cookie, "origin", "http://127.0.0.1:" + node.httpPort()))) {
      none.register(Addresses.PRESENCE_EVENTS);
      assertThat(none.awaitRefusal(Addresses.PRESENCE_EVENTS).getInteger("failureCode")).isEqualTo(401);
      sameSite.register(Addresses.PRESENCE_EVENTS);
      assertThat(sameSite.awaitRefusal(Addresses.PRESENCE_EVENTS).getInteger("failureCode")).isEqualTo(401);
      own.register(Addresses.PRESENCE_EVENTS);
      own.awaitSubscribed(Addresses.PRESENCE_EVENTS);
    }
  }

  @Test
  void aProgramWithoutOriginSubscribesWithItsToken() {
    try (BridgeSocketClient program = BridgeSocketClient.withHeaders(vertx, node.httpPort(), Map.of())) {
      program.register(Addresses.PRESENCE_EVENTS, node.adminToken());
      program.awaitSubscribed(Addresses.PRESENCE_EVENTS);
    }
  }

  private static String login(String token) {
    RawHttp.Response r = RawHttp.send(node.httpPort(), "POST", "/auth/session", Map.of("content-type", "application/json"),
      new JsonObject().put("token", token).toBuffer().getBytes(), 15_000);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String set = r.header("set-cookie");
    return set.substring(0, set.indexOf(';'));
  }
}
