package dev.conclave.gateway.access;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.support.BridgeClient;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.HttpJson;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.SessionSocket;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grant taken back on one node ends the grantee's followers on another (issue 40, finding 2): the
 * change is announced on the event bus, and the node holding the followers re-checks them at once.
 */
class LiveAccessAcrossNodesTest {

  /** From the answer on node A to the ends seen by the clients of node B. */
  private static final long WITHIN_MS = 1_000;

  @Test
  void takingAGrantBackOnOneNodeEndsTheGranteesFollowersOnAnother() {
    PgUrl db = TestDatabase.freshDatabase();
    int hzA = FreePorts.next();
    int hzB = FreePorts.next();
    String members = "127.0.0.1:" + hzA + ",127.0.0.1:" + hzB;
    CompletableFuture<GatewayFixture> starting = CompletableFuture.supplyAsync(() -> GatewayFixture.start(clustered(db, members, hzA)));
    try (GatewayFixture b = GatewayFixture.start(clustered(db, members, hzB));
         GatewayFixture a = starting.join();
         HttpJson httpA = new HttpJson(a.vertx(), a.node().httpPort())) {
      Principal alice = a.newMember("lx-alice");
      Principal bob = a.newMember("lx-bob");
      String aliceToken = a.token(alice);
      String bobToken = a.token(bob);
      String agentId = "lx-agent";
      String address = Addresses.dashboardConversation(agentId);
      Clients aliceOnA = a.clients(aliceToken);
      try (RawAgent agent = a.connect(agentId, a.agentTokenOwnedBy(agentId, alice.id()))) {
        assertThat(httpA.post(aliceToken, "/api/v1/gateway/agents/" + agentId + "/grants",
          new JsonObject().put("principalId", bob.id().toString())).status()).isEqualTo(200);
        try (EventTap stream = b.clients(bobToken).stream(agentId, null);
             SessionSocket session = SessionSocket.open(b.vertx(), b.node().httpPort(), bobToken);
             BridgeClient bridge = BridgeClient.connect(b.vertx(), b.node().httpPort())) {
          session.configure(agentId);
          bridge.subscribe(address, bobToken);

          WebClient web = WebClient.create(a.vertx());
          int status = GatewayFixture.await(web.request(HttpMethod.DELETE, a.node().httpPort(), "127.0.0.1",
            "/api/v1/gateway/agents/" + agentId + "/grants/" + bob.id()).putHeader("authorization", "Bearer " + aliceToken).send()).statusCode();
          web.close();
          assertThat(status).isEqualTo(200);
          long answered = System.nanoTime();
          assertThat(stream.awaitEnd()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
          assertThat(stream.endMessage()).startsWith("access_revoked:");
          assertThat(session.awaitClose()).isEqualTo((short) 4003);
          bridge.await(BridgeClient.error(address), 10);
          assertThat((System.nanoTime() - answered) / 1_000_000).as("ms from the answer on A to the ends on B").isLessThan(WITHIN_MS);

          aliceOnA.sendOk(agentId, "after", "lx-after");
          String request = agent.next().getSendMessage().getRequestId();
          agent.respond(request, MessageResponse.newBuilder().setText("SECRET"));
          agent.respond(request, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
          assertThat(bridge.poll(f -> f.encode().contains("SECRET"), 2)).isEmpty();
          assertThat(session.poll(200)).isNull();
        }
      }
    }
  }

  private static TestNode.Builder clustered(PgUrl db, String members, int hazelcastPort) {
    return TestNode.builder().database(db)
      .env("CONCLAVE_AUTH_SECRET", "live-access-cluster-secret-0123456789abcdef01234")
      .env("CONCLAVE_CLUSTER_MEMBERS", members)
      .env("CONCLAVE_CLUSTER_HOST", "127.0.0.1")
      .env("CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort))
      .env("CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()));
  }
}
