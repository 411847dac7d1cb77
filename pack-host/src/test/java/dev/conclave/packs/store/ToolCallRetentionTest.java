package dev.conclave.packs.store;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.platform.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/** Retention of the tool-call log on a real database: records of calls started before the window go, in batches; the rest stay. */
class ToolCallRetentionTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  @Test
  void recordsOlderThanTheWindowGo() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("packs")));
    insert(db, 35, "now() - interval '31 days'");
    insert(db, 4, "now() - interval '29 days'");
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = PgPools.create(vertx, db, 2, 16);
      RetentionWorker worker = new RetentionWorker(vertx, pool, "packs", List.of(ToolCallRetention.rule(Duration.ofDays(30))),
        new RetentionSettings(10, Duration.ofHours(1), Optional.empty()), new SimpleMeterRegistry());
      RetentionWorker.Run run = await(worker.runOnce(), STEP);
      assertThat(run.deleted("tool-calls")).isEqualTo(35);
      assertThat(run.batches("tool-calls")).isEqualTo(4);
      assertThat(count(db, "true")).isEqualTo(4);
      assertThat(count(db, "started_at < now() - interval '30 days'")).isZero();
    } finally {
      await(vertx.close(), STEP);
    }
  }

  private static void insert(PgUrl db, int n, String started) {
    TestDatabase.execute(db, "INSERT INTO packs.tool_calls (id, agent_id, principal_id, tool_name, origin, node, outcome, started_at, "
      + "duration_ms) SELECT gen_random_uuid(), 'agent', gen_random_uuid(), 'echo', 'mcp', 'n1', 'ok', " + started + ", 5 "
      + "FROM generate_series(1, " + n + ")");
  }

  private static long count(PgUrl db, String where) throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM packs.tool_calls WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
