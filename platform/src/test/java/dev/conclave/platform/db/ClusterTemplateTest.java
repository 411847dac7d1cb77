package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A new data dir's cluster copied from a template (created and migrated once) instead of initdb and
 * every migration: the copy is migrated, takes only its own password, and a template that is not
 * safely this user's is never used.
 */
class ClusterTemplateTest {

  private static final List<SchemaMigration> AUTH = List.of(new SchemaMigration("auth"));

  private Path dir;

  @BeforeEach
  void createDir() throws Exception {
    dir = Files.createTempDirectory("conclave-template-test");
  }

  @AfterEach
  void cleanUp() {
    TestDatabase.deleteTree(dir);
  }

  @Test
  void aNewClusterIsCopiedMigratedAndTakesOnlyItsOwnPassword() throws Exception {
    ClusterTemplate template = ClusterTemplate.in(dir.resolve("templates"), AUTH).orElseThrow();
    String firstPassword;
    try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(dir.resolve("one/pg"), 0, Map.of(), Optional.of(template))) {
      assertThat(Migrations.needingFlyway(first.url(), AUTH)).as("the copy has every auth migration applied").isEmpty();
      firstPassword = first.url().password().orElseThrow();
      assertThat(tables(first.url())).contains("principals");
    }
    assertThat(template.directory()).as("the template is kept for the next data dir").isDirectory();
    int before = Migrations.FLYWAY_OPERATIONS.get();
    try (EmbeddedPostgresServer second = EmbeddedPostgresServer.start(dir.resolve("two/pg"), 0, Map.of(), Optional.of(template))) {
      Migrations.apply(second.url(), AUTH);
      assertThat(Migrations.FLYWAY_OPERATIONS.get()).as("no Flyway run on a copied cluster").isEqualTo(before);
      String secondPassword = second.url().password().orElseThrow();
      assertThat(secondPassword).isNotEqualTo(firstPassword);
      PgUrl other = PgUrl.local(second.port(), firstPassword);
      assertThatThrownBy(() -> DriverManager.getConnection(other.jdbcUrl(), other.user(), firstPassword).close())
        .as("another data dir's password does not get in").isInstanceOf(SQLException.class).hasMessageContaining("password");
    }
    // the copy is a data dir like any other: it starts again with its password
    try (EmbeddedPostgresServer again = EmbeddedPostgresServer.start(dir.resolve("two/pg"), 0, Map.of(), Optional.of(template))) {
      assertThat(tables(again.url())).contains("principals");
    }
  }

  @Test
  void aTemplateFolderOthersMayWriteIsNotUsed() throws Exception {
    Path shared = Files.createDirectories(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(ClusterTemplate.in(shared, AUTH)).isEmpty();
  }

  @Test
  void aTemplateWithoutItsFilesIsBuiltAgain() throws Exception {
    ClusterTemplate template = ClusterTemplate.in(dir.resolve("templates"), AUTH).orElseThrow();
    Files.createDirectories(template.directory()); // an empty folder where the template should be
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("one/pg"), 0, Map.of(), Optional.of(template))) {
      assertThat(Migrations.needingFlyway(pg.url(), AUTH)).isEmpty();
    }
    assertThat(template.directory().resolve("postgresql.conf")).isRegularFile();
  }

  private static List<String> tables(PgUrl url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
         ResultSet rs = c.createStatement().executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'auth'")) {
      List<String> names = new java.util.ArrayList<>();
      while (rs.next()) {
        names.add(rs.getString(1));
      }
      return names;
    }
  }
}
