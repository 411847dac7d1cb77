package dev.conclave.platform.db;

import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedPostgresServerTest {

  private Path dir;

  @AfterEach
  void cleanUp() {
    if (dir != null) {
      TestDatabase.deleteTree(dir);
    }
  }

  @Test
  void theServerCommitsDurably() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, Map.of());
         Connection c = DriverManager.getConnection(pg.url().jdbcUrl(), "postgres", null)) {
      for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes")) {
        try (ResultSet rs = c.createStatement().executeQuery("SHOW " + setting)) {
          rs.next();
          assertThat(rs.getString(1)).as(setting).isEqualTo("on");
        }
      }
    }
  }

  @Test
  void dataSurvivesAStopAndARestartOnTheSameDirectory() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      assertThat(EmbeddedPostgresServer.runningPort(dir)).contains(first.port());
      TestDatabase.execute(first.url(), "CREATE TABLE kept (v text)");
      TestDatabase.execute(first.url(), "INSERT INTO kept VALUES ('before restart')");
    }
    assertThat(EmbeddedPostgresServer.runningPort(dir)).isEmpty();
    assertThat(dir.resolve("PG_VERSION")).exists();

    try (EmbeddedPostgresServer second = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      try (Connection c = DriverManager.getConnection(second.url().jdbcUrl(), "postgres", null);
           ResultSet rs = c.createStatement().executeQuery("SELECT v FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("before restart");
      }
    }
  }
}
