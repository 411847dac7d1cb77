package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MigrationsTest {

  @Test
  void createsTheSchemaWithItsOwnHistoryAndIsIdempotent() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    List<SchemaMigration> schemas = List.of(new SchemaMigration("auth"));

    Migrations.apply(db, schemas);
    Migrations.apply(db, schemas);

    assertThat(tables(db, "auth")).contains("principals", "tokens", "flyway_schema_history");
    assertThat(Migrations.currentVersion(db, schemas.get(0))).isEqualTo(newestScript("auth"));
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM auth.flyway_schema_history WHERE success")) {
      rs.next();
      assertThat(rs.getInt(1)).as("one successful entry per script, even after two runs").isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void concurrentNodesMigratingTheSameDatabaseDoNotConflict() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    List<Thread> nodes = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> {
        try {
          Migrations.apply(db, List.of(new SchemaMigration("auth")));
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      nodes.add(t);
      t.start();
    }
    for (Thread t : nodes) {
      t.join();
    }
    assertThat(failures).isEmpty();
    assertThat(tables(db, "auth")).contains("principals", "tokens");
  }

  /**
   * Issue 45: a schema with no history yet has nothing to realign; checking for it cost a whole Flyway
   * validation (its scan of the jar included) of every such schema on a node's first start.
   */
  @Test
  void aSchemaWithNoHistoryYetIsMigratedWithOneFlywayOperation() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    SchemaMigration rewrittenOnce = new SchemaMigration("auth", java.util.Set.of(1));
    int before = Migrations.FLYWAY_OPERATIONS.get();

    Migrations.apply(db, List.of(rewrittenOnce));

    assertThat(Migrations.FLYWAY_OPERATIONS.get() - before).as("Flyway operations for a schema with no history").isEqualTo(1);
    assertThat(Migrations.currentVersion(db, rewrittenOnce)).isEqualTo(newestScript("auth"));
  }

  @Test
  void schemaNamesMustBeIdentifiers() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SchemaMigration("Bad-Name"))
      .isInstanceOf(IllegalArgumentException.class);
  }

  private static List<String> tables(PgUrl db, String schema) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         ResultSet rs = c.getMetaData().getTables(null, schema, "%", new String[] {"TABLE"})) {
      while (rs.next()) {
        out.add(rs.getString("TABLE_NAME"));
      }
    }
    return out;
  }

  /** The version of the newest migration script of a schema, from the sources (V&lt;n&gt;__….sql). */
  private static String newestScript(String schema) throws java.io.IOException {
    try (var files = java.nio.file.Files.list(java.nio.file.Path.of("src/main/resources/db", schema))) {
      return String.valueOf(files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
        .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow());
    }
  }
}
