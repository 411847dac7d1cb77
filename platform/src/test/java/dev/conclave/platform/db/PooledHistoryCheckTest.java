package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.conclave.platform.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's start reads the migration history over its own pool, not over JDBC (issue 45), and must
 * come to the verdicts the JDBC check comes to, without leaving the pooled connection on another
 * schema's search path.
 */
class PooledHistoryCheckTest {

  private static final SchemaMigration AUTH = new SchemaMigration("auth");
  private static final SchemaMigration PROBE = new SchemaMigration("probe");

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    await(vertx.close());
  }

  private Pool pool(PgUrl db) {
    return PgPools.create(vertx, db, 1, 10);
  }

  @Test
  void aMigratedDatabaseNeedsNothingAndNoJdbc() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(AUTH, PROBE));
    int jdbcBefore = Migrations.JDBC_HISTORY_READS.get();
    int flywayBefore = Migrations.FLYWAY_OPERATIONS.get();

    Migrations.Pending pending = await(Migrations.pending(pool(db), Migrations.scripts(List.of(AUTH, PROBE))));

    assertThat(pending.none()).isTrue();
    assertThat(Migrations.JDBC_HISTORY_READS.get()).as("history reads over JDBC").isEqualTo(jdbcBefore);
    Migrations.apply(db, pending);
    assertThat(Migrations.FLYWAY_OPERATIONS.get()).as("Flyway operations").isEqualTo(flywayBefore);
  }

  @Test
  void aNewDatabaseNeedsEverySchemaWithoutHistoryAndIsThenMigrated() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.Pending pending = await(Migrations.pending(pool(db), Migrations.scripts(List.of(AUTH, PROBE))));

    assertThat(pending.schemas()).containsExactly(AUTH, PROBE);
    assertThat(pending.withoutHistory()).containsExactly(AUTH, PROBE);
    Migrations.apply(db, pending);
    assertThat(Migrations.needingFlyway(db, List.of(AUTH, PROBE))).isEmpty();
  }

  @Test
  void aPendingOrChangedMigrationIsFoundAsOverJdbc() {
    PgUrl db = TestDatabase.freshDatabase();
    Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password().orElse(null)).schemas("auth").defaultSchema("auth")
      .createSchemas(true).locations(AUTH.location()).target("3").load().migrate();
    Migrations.apply(db, List.of(PROBE));
    TestDatabase.execute(db, "UPDATE probe.flyway_schema_history SET checksum = checksum + 1 WHERE version = '2'");

    Migrations.Pending pending = await(Migrations.pending(pool(db), Migrations.scripts(List.of(AUTH, PROBE))));

    assertThat(pending.schemas()).containsExactly(AUTH, PROBE);
    assertThat(pending.withoutHistory()).as("both have a history, one behind, one edited").isEmpty();
  }

  @Test
  void thePooledConnectionKeepsItsOwnSearchPath() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(AUTH, PROBE));
    Pool pool = pool(db);
    String before = await(pool.query("SHOW search_path").execute()).iterator().next().getString(0);

    await(Migrations.pending(pool, Migrations.scripts(List.of(AUTH, PROBE))));

    // one connection in the pool: this is the one the check used
    assertThat(await(pool.query("SHOW search_path").execute()).iterator().next().getString(0)).isEqualTo(before);
  }
}
