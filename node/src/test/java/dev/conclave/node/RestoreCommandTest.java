package dev.conclave.node;

import dev.conclave.gateway.retention.ConversationRetention;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.platform.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code conclave-node restore}: a conversation retention deleted, archived, comes back whole (the same
 * rows, the same seqs) into the node's database; a second run restores nothing; an unknown conversation
 * is exit code 1.
 */
class RestoreCommandTest {

  @Test
  void restoresAnArchivedConversationOnceAndOnlyOnce(@TempDir Path dir) throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth"), new SchemaMigration("gateway")));
    TestDatabase.execute(db, "INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq) VALUES ('web:one', 'agent', 30)");
    TestDatabase.execute(db, "INSERT INTO gateway.events (conversation_key, seq, kind, author, text, payload, created_at) "
      + "SELECT 'web:one', s, 'text', 'agent', 'chunk ' || s, convert_to('p' || s, 'UTF8'), now() - interval '100 days' "
      + "FROM generate_series(1, 30) s");
    String rows = "SELECT md5(e::text) FROM gateway.events e ORDER BY seq";
    List<String> before = query(db, rows);
    Vertx vertx = Vertx.vertx();
    try {
      new RetentionWorker(vertx, PgPools.create(vertx, db, 2, 16), "gateway",
        ConversationRetention.rules(Duration.ofDays(30), 5, Duration.ofDays(30)),
        new RetentionSettings(100, Duration.ofHours(1), Optional.of(dir)), new SimpleMeterRegistry())
        .runOnce().await(60, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    assertThat(query(db, rows)).hasSize(5);

    Map<String, String> env = Map.of("CONCLAVE_PG_URL", db.full(), "CONCLAVE_DATA_DIR", dir.resolve("data").toString());
    assertThat(restore(env, dir, "web:one")).isZero();
    assertThat(query(db, rows)).isEqualTo(before);
    assertThat(restore(env, dir, "web:one")).as("a second restore").isZero();
    assertThat(query(db, rows)).isEqualTo(before);
    assertThat(query(db, "SELECT detail FROM auth.audit WHERE action = 'cli conversation restore' ORDER BY id"))
      .containsExactly("events=25 requests=0", "events=0 requests=0");
    assertThat(restore(env, dir, "web:other")).as("nothing archived").isEqualTo(1);
  }

  private static int restore(Map<String, String> env, Path archive, String conversation) throws Exception {
    RestoreCommand command = new RestoreCommand();
    new CommandLine(command).parseArgs("--archive-dir", archive.toString(), "--conversation", conversation);
    return command.run(env);
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
