package dev.conclave.swarm.store;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.retention.RetentionArchive;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.platform.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Retention of swarm tasks on a real database: only tasks in a terminal state, unchanged for longer
 * than the window, go, with their history, and the archive holds both.
 */
class TaskRetentionTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  private static final List<String> STATES = List.of("blocked", "ready", "claimed", "in_progress", "needs_review", "completed",
    "pending_retry", "failed", "cancelled");

  @Test
  void onlyTerminalTasksPastTheWindowGoWithTheirHistory(@TempDir Path dir) throws Exception {
    db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(SwarmSchema.MIGRATION));
    // every state, changed 40 days ago (old) and 10 days ago (recent); each task with two history rows
    for (String state : STATES) {
      task("old-" + state, state, "now() - interval '40 days'");
      task("new-" + state, state, "now() - interval '10 days'");
    }
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = PgPools.create(vertx, db, 2, 16);
      RetentionWorker worker = new RetentionWorker(vertx, pool, "swarm", List.of(TaskRetention.rule(Duration.ofDays(30))),
        new RetentionSettings(2, Duration.ofHours(1), Optional.of(dir)), new SimpleMeterRegistry());
      RetentionWorker.Run run = await(worker.runOnce(), STEP);
      assertThat(run.deleted("tasks")).isEqualTo(3);
      assertThat(run.deleted("task-history")).isEqualTo(6);
      assertThat(run.batches("tasks")).as("3 tasks in batches of 2").isEqualTo(2);
      List<String> left = query(db, "SELECT id FROM swarm.tasks ORDER BY id");
      assertThat(left).hasSize(15).doesNotContain("old-completed", "old-failed", "old-cancelled")
        .contains("old-blocked", "old-ready", "old-claimed", "old-in_progress", "old-needs_review", "old-pending_retry", "new-completed");
      assertThat(query(db, "SELECT DISTINCT task_id FROM swarm.task_history ORDER BY task_id")).isEqualTo(left);
      TreeSet<String> archived = new TreeSet<>();
      RetentionArchive.read(dir, "tasks", l -> archived.add(new JsonObject(l).getString("id")));
      assertThat(archived).containsExactly("old-cancelled", "old-completed", "old-failed");
      List<String> history = new ArrayList<>();
      RetentionArchive.read(dir, "task-history", l -> history.add(new JsonObject(l).getString("task_id")));
      assertThat(history).hasSize(6);
    } finally {
      await(vertx.close(), STEP);
    }
  }

  private PgUrl db;

  private void task(String id, String state, String changed) {
    TestDatabase.execute(db, "INSERT INTO swarm.tasks (id, title, status, priority, type, max_retries, created_at, updated_at) VALUES ('"
      + id + "', 'a task', '" + state + "', 'medium', 'code', 1, now() - interval '50 days', " + changed + ")");
    TestDatabase.execute(db, "INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data) VALUES ('" + id
      + "', 1, 'task', 'created', now() - interval '50 days', '{}'), ('" + id + "', 2, 'task', 'changed', " + changed + ", '{}')");
  }

  private static List<String> query(PgUrl db, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
