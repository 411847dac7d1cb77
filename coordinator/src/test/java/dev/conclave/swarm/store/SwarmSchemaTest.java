package dev.conclave.swarm.store;

import ch.qos.logback.classic.Level;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.swarm.protocol.Operation;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The swarm functions live in repeatable migrations: a fresh database gets all of them, and a
 * database migrated when they were still in versioned files (other checksums, files since removed)
 * starts without intervention and gets them from the R__ files; any other difference in its history
 * still stops start-up. A database migrated when the functions were in files by concern (since retired
 * for files by operation) starts too, and afterwards without Flyway.
 */
class SwarmSchemaTest {

  private static final List<SchemaMigration> SCHEMAS = List.of(new SchemaMigration("auth"), SwarmSchema.MIGRATION);
  /** The repeatable files: one per protocol operation, and support, dispatch, jobs, learnings, tasks, bulk, task history. */
  private static final int REPEATABLES = Operation.values().length + 7;

  @Test
  void aFreshDatabaseGetsEveryFunctionAndTheHistoryTrigger() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    Migrations.apply(db, SCHEMAS);
    assertThat(functions(db)).contains("dispatch", "dispatch_batch", "execute", "op_claim", "op_complete", "op_acquire_lease",
      "signature_record", "record_task_history", "_emit").doesNotContain("signature_check");
    assertThat(single(db, "SELECT count(*) FROM pg_trigger WHERE tgname = 'events_task_history'")).isEqualTo(1);
    assertThat(single(db, "SELECT count(*) FROM swarm.flyway_schema_history WHERE type = 'SQL' AND version IS NULL"))
      .as("repeatable migrations applied").isEqualTo(REPEATABLES);
  }

  @Test
  void claimAndCompleteAreEachWrittenOnceASingleRequestBeingABatchOfOne() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    // the one statement that claims tasks, and the one that completes them
    assertThat(functionsWhoseSource(db, "SET status = 'claimed', assigned_agent =")).containsExactly("claim_batch");
    assertThat(functionsWhoseSource(db, "result = [a-z_.]+, quality = [a-z_.]+, completed_by =")).containsExactly("complete_batch");
    assertThat(functionsWhoseSource(db, "swarm\\.claim_batch\\(")).contains("op_claim", "dispatch_batch_parts");
    assertThat(functionsWhoseSource(db, "swarm\\.complete_batch\\(")).contains("op_complete", "dispatch_batch_parts");
  }

  @Test
  void aDatabaseFromBeforeTheMoveStartsAndGetsTheFunctionsFromTheRepeatableFiles() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    // make its history look like one written by the versioned files that held the functions
    try (Connection c = connect(db); Statement s = c.createStatement()) {
      s.execute("UPDATE swarm.flyway_schema_history SET checksum = 42 WHERE version = '10'");
      for (int v : new int[] {2, 3, 4, 5, 6, 7, 8, 9, 11}) {
        s.execute("INSERT INTO swarm.flyway_schema_history (installed_rank, version, description, type, script, checksum,"
          + " installed_by, execution_time, success) VALUES ((SELECT max(installed_rank) + 1 FROM swarm.flyway_schema_history), '"
          + v + "', 'old " + v + "', 'SQL', 'V" + v + "__old.sql', " + v + ", current_user, 1, true)");
      }
      s.execute("DELETE FROM swarm.flyway_schema_history WHERE version IS NULL");
      s.execute("DROP FUNCTION swarm.op_claim(jsonb, timestamptz, uuid, boolean)");
    }
    Migrations.apply(db, SCHEMAS);
    assertThat(functions(db)).contains("op_claim");
    assertThat(single(db, "SELECT count(*) FROM swarm.flyway_schema_history WHERE type = 'SQL' AND version IS NULL AND success"))
      .isEqualTo(REPEATABLES);
    Migrations.apply(db, SCHEMAS);
  }

  @Test
  void eachOperationIsOneFileHoldingItsFunction() {
    for (Operation operation : Operation.values()) {
      String file = "db/swarm/R__swarm_op_" + operation.name().toLowerCase(java.util.Locale.ROOT) + ".sql";
      assertThat(getClass().getClassLoader().getResource(file)).as(file).isNotNull();
      assertThat(text(file)).as(file).contains("CREATE OR REPLACE FUNCTION swarm.op_" + operation.name().toLowerCase(java.util.Locale.ROOT) + "(");
    }
    for (String retired : SwarmSchema.RETIRED) {
      assertThat(getClass().getClassLoader().getResource("db/swarm/" + retired)).as(retired).isNull();
    }
  }

  @Test
  void aDatabaseMigratedWithTheFilesByConcernStartsOnTheFilesByOperation() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    // make its history look like one the layout by concern wrote: its files applied, the files by
    // operation (and the others new with them) never; the files both have, with other text
    try (Connection c = connect(db); Statement s = c.createStatement()) {
      s.execute("DELETE FROM swarm.flyway_schema_history WHERE version IS NULL AND script NOT IN"
        + " ('R__swarm_bulk.sql', 'R__swarm_task_history.sql')");
      int checksum = 100;
      for (String script : List.of("R__swarm_agents.sql", "R__swarm_claims.sql", "R__swarm_dispatch.sql", "R__swarm_leases.sql",
        "R__swarm_messages.sql", "R__swarm_support.sql", "R__swarm_tasks.sql", "R__swarm_work_reports.sql")) {
        s.execute("INSERT INTO swarm.flyway_schema_history (installed_rank, version, description, type, script, checksum,"
          + " installed_by, execution_time, success) VALUES ((SELECT max(installed_rank) + 1 FROM swarm.flyway_schema_history),"
          + " NULL, 'old', 'SQL', '" + script + "', " + checksum++ + ", current_user, 1, true)");
      }
      s.execute("DROP FUNCTION swarm.op_claim(jsonb, timestamptz, uuid, boolean)");
      s.execute("DROP FUNCTION swarm.op_ack_message(jsonb, timestamptz, uuid, boolean)");
    }
    Migrations.apply(db, SCHEMAS);
    assertThat(functions(db)).contains("op_claim", "op_ack_message");
    // then it starts as any up-to-date database does: without Flyway, the retired files' history kept
    try (LogCapture log = LogCapture.atLeast(Level.INFO)) {
      Migrations.apply(db, SCHEMAS);
      assertThat(log.rendered()).contains("migrations: schema=swarm up to date").doesNotContain("Flyway validates");
    }
    assertThat(single(db, "SELECT count(*) FROM swarm.flyway_schema_history WHERE script = 'R__swarm_claims.sql'")).isEqualTo(1);
  }

  @Test
  void anotherRepeatableGoneFromTheBuildStillSendsTheSchemaToFlyway() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    try (Connection c = connect(db); Statement s = c.createStatement()) {
      s.execute("INSERT INTO swarm.flyway_schema_history (installed_rank, version, description, type, script, checksum,"
        + " installed_by, execution_time, success) VALUES ((SELECT max(installed_rank) + 1 FROM swarm.flyway_schema_history),"
        + " NULL, 'gone', 'SQL', 'R__swarm_gone.sql', 7, current_user, 1, true)");
    }
    try (LogCapture log = LogCapture.atLeast(Level.INFO)) {
      Migrations.apply(db, SCHEMAS);
      assertThat(log.rendered()).contains("applied R__swarm_gone.sql is not in this build");
    }
  }

  private static String text(String resource) {
    try (var in = SwarmSchemaTest.class.getClassLoader().getResourceAsStream(resource)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aChangedTableMigrationStillStopsStartUp() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, SCHEMAS);
    try (Connection c = connect(db); Statement s = c.createStatement()) {
      s.execute("UPDATE swarm.flyway_schema_history SET checksum = 42 WHERE version = '1'");
    }
    assertThatThrownBy(() -> Migrations.apply(db, SCHEMAS)).hasMessageContaining("checksum");
  }

  @Test
  void theDomainMigrationKeepsTheTasksTheirClaimOrderAndEveryRule() throws SQLException {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth")));
    // a database from before V13: the same rules as CHECK constraints, and tasks in it
    Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password().orElse(null))
      .schemas("swarm").defaultSchema("swarm").createSchemas(true).locations(SwarmSchema.MIGRATION.location())
      .target("12").load().migrate();
    try (Connection c = connect(db); Statement s = c.createStatement()) {
      s.execute("SELECT swarm.create_tasks('[{\"id\": \"low\", \"title\": \"l\", \"priority\": \"low\"},"
        + " {\"id\": \"critical\", \"title\": \"c\", \"priority\": \"critical\"},"
        + " {\"id\": \"high\", \"title\": \"h\", \"priority\": \"high\"}]'::jsonb)");
    }
    assertThat(single(db, "SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid = 'swarm.tasks'::regclass"))
      .isEqualTo(5);

    Migrations.apply(db, SCHEMAS);

    try (Connection c = connect(db); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT id FROM swarm.tasks WHERE status = 'ready' ORDER BY swarm.priority_rank(priority), created_at, seq")) {
        List<String> order = new ArrayList<>();
        while (rs.next()) {
          order.add(rs.getString(1));
        }
        assertThat(order).containsExactly("critical", "high", "low");
      }
      assertThat(single(db, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'swarm' AND indexname = 'tasks_claimable'"))
        .isEqualTo(1);
      // the rules hold as before: a word outside the vocabulary, or a negative count, is refused
      for (String bad : List.of("UPDATE swarm.tasks SET status = 'done' WHERE id = 'low'",
        "UPDATE swarm.tasks SET priority = 'urgent' WHERE id = 'low'",
        "UPDATE swarm.tasks SET type = 'chore' WHERE id = 'low'",
        "UPDATE swarm.tasks SET unmet_deps = -1 WHERE id = 'low'",
        "UPDATE swarm.tasks SET max_retries = -1 WHERE id = 'low'",
        "INSERT INTO swarm.events (kind, event, entity_id, at, data) VALUES ('other', 'x', 'low', now(), '{}')")) {
        assertThatThrownBy(() -> s.execute(bad)).as(bad)
          .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23514"));
      }
    }
    // and none of them is a table CHECK constraint any more (each would be read again for every statement)
    assertThat(single(db, "SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid IN "
      + "('swarm.tasks'::regclass, 'swarm.agents'::regclass, 'swarm.events'::regclass)")).isZero();
    // nor is the claim order a generated column (its expression would be parsed again for every UPDATE of a task)
    assertThat(single(db, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'swarm.tasks'::regclass AND attgenerated <> ''"))
      .isZero();
  }

  /** The swarm functions whose source matches the regular expression, by name. */
  private static List<String> functionsWhoseSource(PgUrl db, String regex) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(db); java.sql.PreparedStatement s = c.prepareStatement(
      "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'swarm' AND p.prosrc ~ ? ORDER BY 1")) {
      s.setString(1, regex);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static List<String> functions(PgUrl db) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(db); ResultSet rs = c.createStatement().executeQuery(
      "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'swarm'")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static long single(PgUrl db, String sql) throws SQLException {
    try (Connection c = connect(db); ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Connection connect(PgUrl db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
  }
}
