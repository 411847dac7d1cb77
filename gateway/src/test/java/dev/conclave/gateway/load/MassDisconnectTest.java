package dev.conclave.gateway.load;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of agents dropped at once (a load balancer restart, a network blip): every session
 * closes cleanly, with no ERROR logged, and every request in flight ends exactly once, with the
 * recoverable "agent disconnected" error. Closing sessions used to queue two pool requests each and
 * overflow the pool's wait queue.
 */
class MassDisconnectTest {

  static final int AGENTS = 2000;
  static final int IN_FLIGHT = 300;

  @Test
  void twoThousandAgentsDroppedAtOnceCloseCleanlyAndTheirRequestsEndOnceRecoverably() throws Exception {
    try (GatewayFixture gw = GatewayFixture.start(TestNode.builder()
           .env(NodeSettings.MAX_CONNECTIONS_PER_PRINCIPAL, String.valueOf(2 * AGENTS))
           // a wait queue below the number of closing sessions: closing must not need a pool request each
           .env(NodeSettings.PG_POOL_WAIT_QUEUE, "1000"));
         LogCapture log = LogCapture.warnings()) {
      String token = gw.agentToken("mass");
      List<GrpcClient> connections = new ArrayList<>();
      List<RawAgent> agents = new ArrayList<>();
      for (int i = 0; i < AGENTS; i++) {
        GrpcClient own = GrpcClient.client(gw.vertx());
        connections.add(own);
        RawAgent agent = RawAgent.open(own, gw.address(), token);
        agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("mass-" + i)).build());
        agents.add(agent);
      }
      for (RawAgent agent : agents) {
        assertThat(agent.next(60_000).hasWelcome()).isTrue();
      }

      // some agents take a request and sit on it
      Set<String> requests = new HashSet<>();
      for (int i = 0; i < IN_FLIGHT; i++) {
        gw.admin().sendOk("mass-" + i, "hold this", "mass-" + i);
      }
      for (int i = 0; i < IN_FLIGHT; i++) {
        ServerMessage work = agents.get(i).next(30_000);
        assertThat(work.hasSendMessage()).isTrue();
        requests.add(work.getSendMessage().getRequestId());
      }

      // every connection drops at once
      List<Future<Void>> closing = new ArrayList<>();
      connections.forEach(c -> closing.add(c.close()));
      GatewayFixture.await(Future.join(closing).otherwiseEmpty());

      Pool pool = PgPools.create(gw.vertx(), gw.node().database(), 2, 100);
      try {
        long deadline = System.currentTimeMillis() + 120_000;
        Map<String, List<String>> terminals = Map.of();
        long connected = -1;
        while (System.currentTimeMillis() < deadline) {
          terminals = terminalsByRequest(pool);
          connected = GatewayFixture.await(pool.query("SELECT count(*) FROM gateway.requests WHERE state = 'dispatched'").execute())
            .iterator().next().getLong(0);
          if (connected == 0 && terminals.keySet().containsAll(requests) && gw.node().runtime().context().metrics()
              .find(dev.conclave.platform.metrics.MetricNames.GATEWAY_AGENTS_CONNECTED).gauge().value() == 0) {
            break;
          }
          Thread.sleep(250);
        }
        assertThat(connected).as("no request left in flight").isZero();
        assertThat(terminals.keySet()).as("every request in flight ended").containsAll(requests);
        Thread.sleep(500);
        terminals = terminalsByRequest(pool);
        for (String id : requests) {
          assertThat(terminals.get(id)).as("request %s ends exactly once, recoverably", id).singleElement()
            .satisfies(t -> assertThat(t).contains("agent disconnected").contains("recoverable=true"));
        }
        assertThat(log.errors()).as("nothing logged at ERROR while closing").isEmpty();
        assertThat(log.lines(ch.qos.logback.classic.Level.WARN)).as("no close step failed")
          .noneMatch(l -> l.contains("could not finish closing"));
      } finally {
        GatewayFixture.await(pool.close());
      }
    }
  }

  /** The terminal events per request: kind, text and whether recoverable. */
  private static Map<String, List<String>> terminalsByRequest(Pool pool) {
    Map<String, List<String>> out = new HashMap<>();
    for (Row r : GatewayFixture.await(pool.query("SELECT request_id::text AS id, kind, payload FROM gateway.events"
        + " WHERE kind IN ('done', 'error', 'cancelled')").execute())) {
      String summary;
      try {
        var event = dev.conclave.proto.coven.ClientStreamEvent.parseFrom(r.getBuffer("payload").getBytes());
        summary = r.getString("kind") + " " + event.getError().getMessage() + " recoverable=" + event.getError().getRecoverable();
      } catch (Exception e) {
        summary = r.getString("kind") + " unreadable";
      }
      out.computeIfAbsent(r.getString("id"), k -> new ArrayList<>()).add(summary);
    }
    return out;
  }
}
