package dev.conclave.gateway.conformance;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.Http2Route;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ListAgentsRequest;
import io.vertx.core.Vertx;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/2 PINGs find an agent whose connection went silent without closing (a frozen process, a
 * dropped route), long before its heartbeat timeout; an idle agent that answers them stays, as does
 * an idle agent one of whose answers is lost, and an agent whose answers are all lost while its
 * messages still arrive.
 */
class PingLivenessTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder()
      .env(GatewaySettings.HEARTBEAT_TIMEOUT, "120")
      .env(GatewaySettings.PING_INTERVAL, "1"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void anIdleAgentThatAnswersPingsStaysConnected() throws Exception {
    try (RawAgent idle = gw.connect("pinged-idle", gw.agentToken("pinged-idle"))) {
      // five PING intervals without a message from the agent: its client answers the PINGs
      Thread.sleep(5_000);
      assertThat(idle.ended()).isFalse();
      assertThat(connected("pinged-idle")).isTrue();
    }
  }

  @Test
  void aConnectionThatStopsAnsweringPingsIsDroppedLongBeforeTheHeartbeatTimeout() throws Exception {
    onRoute("frozen", (route, agent) -> {
      assertThat(connected("frozen")).isTrue();
      long frozenAt = System.nanoTime();
      route.freeze();
      // two intervals of patience, then at most half an interval until the next check
      while (connected("frozen") && System.nanoTime() - frozenAt < 20_000_000_000L) {
        Thread.sleep(100);
      }
      double seconds = (System.nanoTime() - frozenAt) / 1e9;
      assertThat(connected("frozen")).as("still connected %.1f s after its connection froze", seconds).isFalse();
      assertThat(seconds).as("dropped by the PING deadline, not the 120 s heartbeat timeout").isLessThan(20);
    });
  }

  @Test
  void anAgentWhosePingAnswersAreLostStaysWhileItsMessagesArrive() throws Exception {
    onRoute("unanswering", (route, agent) -> {
      route.dropPingAnswers();
      // six PING intervals with no answer reaching the gateway, but a heartbeat every half interval
      long until = System.nanoTime() + 6_000_000_000L;
      while (System.nanoTime() < until) {
        agent.heartbeat();
        Thread.sleep(500);
      }
      assertThat(route.droppedPingAnswers()).as("PING answers the route swallowed").isGreaterThanOrEqualTo(3);
      assertThat(agent.ended()).isFalse();
      assertThat(connected("unanswering")).isTrue();
    });
  }

  @Test
  void anIdleAgentThatLosesOnePingAnswerStays() throws Exception {
    onRoute("one-lost", (route, agent) -> {
      route.dropPingAnswers(1);
      // six PING intervals and not a message from the agent: the answers after the lost one arrive
      Thread.sleep(6_000);
      assertThat(route.droppedPingAnswers()).as("PING answers the route swallowed").isEqualTo(1);
      assertThat(agent.ended()).isFalse();
      assertThat(connected("one-lost")).isTrue();
    });
  }

  /** What a test does with an agent registered through its own {@link Http2Route} to the gateway. */
  private interface RouteTest {
    void run(Http2Route route, RawAgent agent) throws Exception;
  }

  /** Registers {@code agentId} through a fresh route and runs {@code test}; closes both afterwards. */
  private static void onRoute(String agentId, RouteTest test) throws Exception {
    Vertx vertx = gw.vertx();
    Http2Route route = new Http2Route(vertx, gw.address());
    GrpcClient client = GrpcClient.client(vertx);
    try (RawAgent agent = RawAgent.open(client, route.address(), gw.agentToken(agentId))) {
      agent.register(RawAgent.registration(agentId));
      test.run(route, agent);
    } finally {
      GatewayFixture.await(client.close());
      route.close();
    }
  }

  private static boolean connected(String agentId) {
    Clients admin = gw.admin();
    List<AgentInfo> agents = admin.grpc().unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), admin.authorization())
      .response().orElseThrow().getAgentsList();
    Optional<AgentInfo> agent = agents.stream().filter(a -> a.getId().equals(agentId)).findFirst();
    return agent.isPresent() && agent.get().getConnected();
  }
}
