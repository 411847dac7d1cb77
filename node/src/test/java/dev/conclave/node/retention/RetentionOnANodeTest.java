package dev.conclave.node.retention;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node with every role runs every retention worker on its timer: old rows of each kind written after
 * it started are gone within a few intervals, each archived first, and the rows inside the windows stay.
 */
class RetentionOnANodeTest {

  private static final List<String> KINDS = List.of("events", "tasks", "task-history", "tool-calls", "tokens");

  @Test
  void everyWorkerRunsOnTheNodesTimer(@TempDir Path archive) throws Exception {
    try (TestNode node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole())
      .env("CONCLAVE_RETENTION_INTERVAL_SECONDS", "1").env("CONCLAVE_RETENTION_ARCHIVE_DIR", archive.toString()).start()) {
      PgUrl db = node.database();
      TestDatabase.execute(db, "INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq) VALUES ('web:old', 'a', 60)");
      TestDatabase.execute(db, "INSERT INTO gateway.events (conversation_key, seq, kind, author, payload, created_at) "
        + "SELECT 'web:old', s, 'text', 'a', '\\x00'::bytea, now() - interval '100 days' FROM generate_series(1, 60) s");
      TestDatabase.execute(db, "INSERT INTO swarm.tasks (id, title, status, priority, type, max_retries, created_at, updated_at) "
        + "VALUES ('t-old', 't', 'completed', 'low', 'code', 0, now() - interval '60 days', now() - interval '40 days'), "
        + "('t-live', 't', 'ready', 'low', 'code', 0, now() - interval '60 days', now() - interval '40 days')");
      TestDatabase.execute(db, "INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data) "
        + "VALUES ('t-old', 1, 'task', 'created', now() - interval '60 days', '{}')");
      TestDatabase.execute(db, "INSERT INTO packs.tool_calls (id, agent_id, principal_id, tool_name, origin, node, outcome, started_at, "
        + "duration_ms) VALUES (gen_random_uuid(), 'a', gen_random_uuid(), 'echo', 'mcp', 'n', 'ok', now() - interval '40 days', 1)");
      TestDatabase.execute(db, "INSERT INTO auth.principals (id, type, display_name, status) "
        + "VALUES ('00000000-0000-0000-0000-0000000000b7', 'agent', 'old', 'approved')");
      TestDatabase.execute(db, "INSERT INTO auth.tokens (id, principal_id, issued_at, expires_at) VALUES (gen_random_uuid(), "
        + "'00000000-0000-0000-0000-0000000000b7', now() - interval '60 days', now() - interval '40 days')");

      long deadline = System.nanoTime() + 60_000_000_000L;
      while (System.nanoTime() < deadline && (count(db, "gateway.events") > 50 || count(db, "swarm.tasks") > 1
        || count(db, "packs.tool_calls") > 0 || count(db, "auth.tokens WHERE principal_id = '00000000-0000-0000-0000-0000000000b7'") > 0)) {
        Thread.sleep(200);
      }
      assertThat(count(db, "gateway.events")).as("the latest 50 events stay").isEqualTo(50);
      assertThat(count(db, "swarm.tasks WHERE id = 't-live'")).isEqualTo(1);
      assertThat(count(db, "swarm.tasks WHERE id = 't-old'")).isZero();
      assertThat(count(db, "packs.tool_calls")).isZero();
      assertThat(count(db, "auth.tokens WHERE principal_id = '00000000-0000-0000-0000-0000000000b7'")).isZero();
      assertThat(count(db, "auth.tokens")).as("the admin's live token").isPositive();
      try (Stream<Path> files = Files.list(archive)) {
        List<String> names = files.map(p -> p.getFileName().toString()).toList();
        for (String kind : KINDS) {
          assertThat(names).as("archived " + kind).anyMatch(n -> n.matches(kind + "-\\d{4}-\\d{2}-\\d{2}\\.ndjson\\.gz"));
        }
      }
    }
  }

  private static long count(PgUrl db, String from) throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + from)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
