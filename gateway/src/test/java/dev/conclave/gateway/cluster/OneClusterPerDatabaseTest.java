package dev.conclave.gateway.cluster;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second standalone gateway node on a database another standalone node uses would end that
 * node's requests in flight as a dead node's. It waits instead, and starts once the first lets go
 * (a restart or a rolling update), with the first node's work untouched meanwhile.
 */
class OneClusterPerDatabaseTest {

  @Test
  void aSecondStandaloneGatewayWaitsForTheFirstToStopBeforeItStarts() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    String secret = "one-cluster-per-database-secret-0123456789abcdef";
    GatewayFixture first = GatewayFixture.start(TestNode.builder().database(db).env("CONCLAVE_AUTH_SECRET", secret));
    CompletableFuture<GatewayFixture> second = null;
    try (RawAgent agent = first.connect("claimed-db-agent", first.agentToken("claimed-db-agent"))) {
      String requestId = first.admin().sendOk("claimed-db-agent", "still mine?", "claimed-db-agent");
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(requestId);
      second = CompletableFuture.supplyAsync(() -> GatewayFixture.start(TestNode.builder().database(db).env("CONCLAVE_AUTH_SECRET", secret)));
      Thread.sleep(4_000);
      assertThat(second).as("a second standalone gateway started beside the first").isNotDone();
      // the first node's request in flight was left alone
      assertThat(requestState(db, requestId)).isEqualTo("dispatched");
    } finally {
      first.close();
    }
    try (GatewayFixture started = second.get(30, TimeUnit.SECONDS)) {
      assertThat(started.node().runtime()).isNotNull();
    }
  }

  private static String requestState(PgUrl db, String requestId) throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         PreparedStatement q = c.prepareStatement("SELECT state FROM gateway.requests WHERE id = ?::uuid")) {
      q.setString(1, requestId);
      try (ResultSet r = q.executeQuery()) {
        return r.next() ? r.getString(1) : null;
      }
    }
  }
}
