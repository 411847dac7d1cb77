package dev.conclave.platform.db;

import ch.qos.logback.classic.Level;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.platform.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.exception.FlywayValidateException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node skips Flyway for a schema only when the schema's history records exactly this build's
 * scripts (issue 45); every other history still goes through Flyway, which refuses a changed applied
 * migration as before.
 */
class AppliedMigrationsTest {

  private static final SchemaMigration AUTH = new SchemaMigration("auth");

  @Test
  void theChecksumsAreFlywaysOwnSoAMigratedSchemaIsUpToDate() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(AUTH));

    MigrationScripts scripts = MigrationScripts.of(AUTH, getClass().getClassLoader()).orElseThrow();
    assertThat(scripts.scripts()).as("the auth scripts, read without Flyway").hasSizeGreaterThanOrEqualTo(9);
    try (Connection c = connect(db)) {
      AppliedMigrations.Verdict verdict = AppliedMigrations.check(c, scripts);
      assertThat(verdict.difference()).isEmpty();
      assertThat(verdict.upToDate()).isTrue();
      assertThat(verdict.version()).isEqualTo(Migrations.currentVersion(db, AUTH));
    }
  }

  @Test
  void anUpToDateSchemaIsNotHandedToFlywayAgain() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(AUTH));
    try (LogCapture log = LogCapture.atLeast(Level.INFO)) {
      Migrations.apply(db, List.of(AUTH));
      assertThat(log.rendered()).contains("migrations: schema=auth up to date version=" + Migrations.currentVersion(db, AUTH))
        .doesNotContain("Flyway validates");
    }
    assertThat(Migrations.needingFlyway(db, List.of(AUTH))).isEmpty();
  }

  @Test
  void aChangedAppliedMigrationIsStillRefused() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(AUTH));
    // the history now says V2 was applied from other text than the build's V2: as if the file had been edited since
    TestDatabase.execute(db, "UPDATE auth.flyway_schema_history SET checksum = checksum + 1 WHERE version = '2'");

    assertThat(Migrations.needingFlyway(db, List.of(AUTH))).containsExactly(AUTH);
    assertThatThrownBy(() -> Migrations.apply(db, List.of(AUTH)))
      .isInstanceOf(FlywayValidateException.class)
      .hasMessageContaining("checksum mismatch")
      .hasMessageContaining("2");
  }

  @Test
  void aPendingMigrationIsApplied() {
    PgUrl db = TestDatabase.freshDatabase();
    Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password().orElse(null)).schemas("auth").defaultSchema("auth")
      .createSchemas(true).locations(AUTH.location()).target("3").load().migrate();

    assertThat(Migrations.needingFlyway(db, List.of(AUTH))).containsExactly(AUTH);
    Migrations.apply(db, List.of(AUTH));
    assertThat(Migrations.currentVersion(db, AUTH)).isNotEqualTo("3");
    assertThat(Migrations.needingFlyway(db, List.of(AUTH))).isEmpty();
  }

  @Test
  void aDatabaseWithoutTheSchemaNeedsFlyway() {
    assertThat(Migrations.needingFlyway(TestDatabase.freshDatabase(), List.of(AUTH))).containsExactly(AUTH);
  }

  @Test
  void onlyAHistoryAsACleanRunLeavesItIsUpToDate() {
    List<MigrationScripts.Script> scripts = List.of(new MigrationScripts.Script("V1__a.sql", 11),
      new MigrationScripts.Script("V2__b.sql", 22), new MigrationScripts.Script("R__f.sql", 33));
    AppliedMigrations.Row schema = new AppliedMigrations.Row(0, null, "<< Flyway Schema Creation >>", null, "SCHEMA", true);
    AppliedMigrations.Row v1 = new AppliedMigrations.Row(1, "1", "V1__a.sql", 11, "SQL", true);
    AppliedMigrations.Row v2 = new AppliedMigrations.Row(2, "2", "V2__b.sql", 22, "SQL", true);
    AppliedMigrations.Row rOld = new AppliedMigrations.Row(3, null, "R__f.sql", 30, "SQL", true);
    AppliedMigrations.Row rNew = new AppliedMigrations.Row(4, null, "R__f.sql", 33, "SQL", true);

    assertThat(AppliedMigrations.compare(scripts, List.of(schema, v1, v2, rOld, rNew)))
      .isEqualTo(AppliedMigrations.Verdict.current("2"));
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, v2, rNew, rOld)).difference())
      .as("the repeatable's latest run has other text").contains("R__f.sql differs");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, rNew)).difference()).contains("V2__b.sql not applied yet");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, new AppliedMigrations.Row(2, "2", "V2__b.sql", 21, "SQL", true), rNew))
      .difference()).contains("V2__b.sql differs");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, new AppliedMigrations.Row(2, "2", "V2__b.sql", 22, "SQL", false), rNew))
      .difference()).contains("failed");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, v2, rNew, new AppliedMigrations.Row(5, "3", "V3__c.sql", 44, "SQL", true)))
      .difference()).as("a newer build's script").contains("V3__c.sql is not in this build");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, v2, rNew, new AppliedMigrations.Row(5, "2", "V2__b.sql", null, "DELETE", true)))
      .difference()).as("a repair's mark").contains("DELETE");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, v2, v2, rNew)).difference()).contains("applied twice");
  }

  @Test
  void aRetiredRepeatableInTheHistoryIsNoDifferenceAnyOtherMissingOneIs() {
    List<MigrationScripts.Script> scripts = List.of(new MigrationScripts.Script("V1__a.sql", 11),
      new MigrationScripts.Script("R__op_a.sql", 33), new MigrationScripts.Script("R__op_b.sql", 44));
    AppliedMigrations.Row v1 = new AppliedMigrations.Row(1, "1", "V1__a.sql", 11, "SQL", true);
    AppliedMigrations.Row concern = new AppliedMigrations.Row(2, null, "R__concern.sql", 30, "SQL", true);
    AppliedMigrations.Row opA = new AppliedMigrations.Row(3, null, "R__op_a.sql", 33, "SQL", true);
    AppliedMigrations.Row opB = new AppliedMigrations.Row(4, null, "R__op_b.sql", 44, "SQL", true);
    Set<String> retired = Set.of("R__concern.sql");

    assertThat(AppliedMigrations.compare(scripts, List.of(v1, concern, opA, opB), retired))
      .isEqualTo(AppliedMigrations.Verdict.current("1"));
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, concern, opA, opB)).difference())
      .as("not declared retired").contains("R__concern.sql is not in this build");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, concern, opA), retired).difference())
      .as("its successors still to run").contains("R__op_b.sql not applied yet");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, concern, opA, opB,
      new AppliedMigrations.Row(5, null, "R__other.sql", 50, "SQL", true)), retired).difference())
      .contains("R__other.sql is not in this build");
    assertThat(AppliedMigrations.compare(scripts, List.of(v1, new AppliedMigrations.Row(2, null, "R__concern.sql", 30, "SQL", false),
      opA, opB), retired).difference()).contains("failed");
  }

  @Test
  void theChecksumIgnoresLineEndingsAndAByteOrderMark() {
    int unix = MigrationScripts.checksum(stream("CREATE TABLE t (a int);\nSELECT 1;\n"));
    assertThat(MigrationScripts.checksum(stream("CREATE TABLE t (a int);\r\nSELECT 1;\r\n"))).isEqualTo(unix);
    assertThat(MigrationScripts.checksum(stream("\uFEFFCREATE TABLE t (a int);\nSELECT 1;\n"))).isEqualTo(unix);
    assertThat(MigrationScripts.checksum(stream("CREATE TABLE t (a bigint);\nSELECT 1;\n"))).isNotEqualTo(unix);
  }

  private static ByteArrayInputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  private static Connection connect(PgUrl db) throws Exception {
    return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
  }
}
