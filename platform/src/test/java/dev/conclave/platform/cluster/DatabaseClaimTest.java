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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A database serves one cluster of gateway nodes: a standalone node has it to itself, clustered
 * nodes share it, and a node that finds it taken waits, then names the holder and what to set.
 */
class DatabaseClaimTest {

  private static final Duration LONG = Duration.ofSeconds(20);
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    await(vertx.close());
  }

  @Test
  void aSecondStandaloneNodeIsRefusedWithTheHolderAndTheSettingsToSet() {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim first = await(DatabaseClaim.take(vertx, db, true, "first-node", LONG));
    try {
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, true, "second-node", SHORT)))
        .hasRootCauseInstanceOf(ConfigException.class)
        .rootCause()
        .hasMessageContaining("CONCLAVE_CLUSTER_MEMBERS: database " + db.database() + " is in use by a standalone gateway node")
        .hasMessageContaining("conclave standalone node first-node from ")
        .hasMessageContaining("must form one cluster: set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS on every node");
      // nor may a clustered node use it: the standalone node would end that cluster's requests
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, false, "clustered-node", SHORT)))
        .rootCause()
        .hasMessageContaining("in use by a standalone gateway node")
        .hasMessageContaining("set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS on it too, or stop it");
    } finally {
      await(first.close());
    }
    // let go: the next node takes it at once
    await(await(DatabaseClaim.take(vertx, db, true, "second-node", SHORT)).close());
  }

  @Test
  void clusteredNodesShareTheDatabaseAndAStandaloneNodeIsToldToJoinThem() {
    PgUrl db = TestDatabase.freshDatabase();
    List<DatabaseClaim> cluster = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        cluster.add(await(DatabaseClaim.take(vertx, db, false, "member-" + i, SHORT)));
      }
      assertThatThrownBy(() -> await(DatabaseClaim.take(vertx, db, true, "loner", SHORT)))
        .rootCause()
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("in use by a cluster of gateway nodes (conclave clustered node member-0 from ")
        .hasMessageContaining("conclave clustered node member-2")
        .hasMessageContaining("join their cluster: set CONCLAVE_CLUSTER_MEMBERS or CONCLAVE_CLUSTER_K8S_DNS");
    } finally {
      cluster.forEach(c -> await(c.close()));
    }
  }

  @Test
  void aNodeWaitsForTheHolderToLetGo() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim old = await(DatabaseClaim.take(vertx, db, true, "old-node", LONG));
    CompletableFuture<DatabaseClaim> next = DatabaseClaim.take(vertx, db, true, "new-node", LONG).toCompletionStage().toCompletableFuture();
    Thread.sleep(2_500);
    assertThat(next).as("taken while the old node holds it").isNotDone();
    await(old.close());
    await(next.get(10, TimeUnit.SECONDS).close());
  }

  @Test
  void aClaimWhoseConnectionDroppedIsTakenAgain() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    DatabaseClaim claim = await(DatabaseClaim.take(vertx, db, true, "restarted-db-node", LONG));
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
      await(claim.close());
    }
    assertThat(claim.held()).isFalse();
  }

  private static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
