package dev.conclave.platform.cluster;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.conclave.platform.testing.Await.await;

/**
 * A database serves one cluster of gateway nodes: a standalone node has it to itself, clustered
 * nodes share it, and a node that finds it taken waits, then names the holder and what to set.
 */
class DatabaseClaimTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  private static final Duration LONG = Duration.ofSeconds(20);
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    await(vertx.close(), STEP);
  }

  @Test
  void aSecondStandaloneNodeIsRefusedWithTheHolderAndTheSettingsToSet() {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim first = await(DatabaseClaim.take(vertx, db, true, "first-node", LONG), STEP);
    try {
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, true, "second-node", SHORT), STEP))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("CONCLAVE_CLUSTER_MEMBERS: database " + db.database() + " is in use by a standalone gateway node")
        .hasMessageContaining("conclave standalone node first-node from ")
        .hasMessageContaining("must form one cluster: set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS on every node");
      // nor may a clustered node use it: the standalone node would end that cluster's requests
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, false, "clustered-node", SHORT), STEP))
        .hasMessageContaining("in use by a standalone gateway node")
        .hasMessageContaining("set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS on it too, or stop it");
    } finally {
      await(first.close(), STEP);
    }
    // let go: the next node takes it at once
    await(await(DatabaseClaim.take(vertx, db, true, "second-node", SHORT), STEP).close(), STEP);
  }

  @Test
  void clusteredNodesShareTheDatabaseAndAStandaloneNodeIsToldToJoinThem() {
    PgUrl db = TestDatabase.freshDatabase();
    List<DatabaseClaim> cluster = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        cluster.add(await(DatabaseClaim.take(vertx, db, false, "member-" + i, SHORT), STEP));
      }
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, true, "loner", SHORT), STEP))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("in use by a cluster of gateway nodes (conclave clustered node member-0 from ")
        .hasMessageContaining("conclave clustered node member-2")
        .hasMessageContaining("join their cluster: set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS");
    } finally {
      cluster.forEach(c -> await(c.close(), STEP));
    }
  }

  @Test
  void aNodeWaitsForTheHolderToLetGo() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim old = await(DatabaseClaim.take(vertx, db, true, "old-node", LONG), STEP);
    Future<DatabaseClaim> next = DatabaseClaim.take(vertx, db, true, "new-node", LONG);
    Thread.sleep(2_500);
    assertThat(next.isComplete()).as("taken while the old node holds it").isFalse();
    await(old.close(), STEP);
    await(next.await(10, TimeUnit.SECONDS).close(), STEP);
  }

  @Test
  void aClaimWhoseConnectionDroppedIsTakenAgain() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim claim = await(DatabaseClaim.take(vertx, db, true, "restarted-db-node", LONG), STEP);
    assertThat(claim.held()).isTrue();
    try (Connection admin = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement sql = admin.createStatement()) {
      // what a PostgreSQL restart does to the connection
      sql.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'conclave standalone node restarted-db-node'");
      String holder = null;
      for (long until = System.nanoTime() + 15_000_000_000L; holder == null && System.nanoTime() < until; ) {
        Thread.sleep(200);
        try (ResultSet r = sql.executeQuery("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
          + "WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ExclusiveLock'")) {
          holder = r.next() ? r.getString(1) : null;
        }
      }
      assertThat(holder).as("the node's claim after its connection was ended").isEqualTo("conclave standalone node restarted-db-node");
      for (long until = System.nanoTime() + 5_000_000_000L; !claim.held() && System.nanoTime() < until; ) {
        Thread.sleep(50);
      }
      assertThat(claim.held()).as("held, as the node's readiness reports").isTrue();
    } finally {
      await(claim.close(), STEP);
    }
    assertThat(claim.held()).isFalse();
  }
}
