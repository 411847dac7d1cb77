package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedPostgresServerTest {

  private Path dir;

  @AfterEach
  void cleanUp() {
    if (dir != null) {
      TestDatabase.deleteTree(dir.getParent());   // the temporary directory around the server's
    }
  }

  @Test
  void theServerCommitsDurably() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, Map.of());
         Connection c = connect(pg.url())) {
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
      try (Connection c = connect(second.url());
           ResultSet rs = c.createStatement().executeQuery("SELECT v FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("before restart");
      }
    }
  }

  @Test
  void theNodesPoolReachesItThroughItsUnixSocketOnTheNativeTransportAndByTcpOtherwise() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      io.vertx.core.Vertx epoll = io.vertx.core.Vertx.builder().with(new io.vertx.core.VertxOptions().setPreferNativeTransport(true)).build();
      io.vertx.core.Vertx nio = io.vertx.core.Vertx.vertx();
      try {
        if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")) {
          assertThat(epoll.isNativeTransportEnabled()).as("epoll loads on Linux x86-64: %s", epoll.unavailableNativeTransportCause()).isTrue();
        }
        assertThat(clientAddress(epoll, pg.url())).isEqualTo(epoll.isNativeTransportEnabled() ? "unix socket" : "127.0.0.1");
        assertThat(clientAddress(nio, pg.url())).as("Vert.x reaches Unix sockets only with the native transport").isEqualTo("127.0.0.1");
      } finally {
        epoll.close().await(30, java.util.concurrent.TimeUnit.SECONDS);
        nio.close().await(30, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }

  /** How the server sees a connection from a node's pool: its client address, or none on a Unix socket. */
  private static String clientAddress(io.vertx.core.Vertx vertx, PgUrl url) throws Exception {
    io.vertx.sqlclient.Pool pool = PgPools.create(vertx, url, 1, 10);
    try {
      return pool.query("SELECT coalesce(host(inet_client_addr()), 'unix socket') AS client").execute()
        .await(30, java.util.concurrent.TimeUnit.SECONDS)
        .iterator().next().getString("client");
    } finally {
      pool.close();
    }
  }

  // ---- only the password gets in ----------------------------------------------------------

  @Test
  void aNewClusterTakesOnlyItsPasswordAndKeepsItInAPrivateFile() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      assertLocked(pg, dir);
    }
  }

  @Test
  void aClusterThatTrustedEveryLocalConnectionIsLockedOnItsNextStart() throws Exception {
    dir = Files.createTempDirectory("conclave-epg").resolve("pg");
    // a cluster as earlier versions made it: initdb -A trust, no password
    try (EmbeddedPostgres legacy = EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false).start();
         Connection c = legacy.getPostgresDatabase().getConnection()) {
      c.createStatement().execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('from before')");
    }
    assertThat(Files.readString(dir.resolve("pg_hba.conf"))).contains("trust");

    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      assertLocked(pg, dir);
      try (Connection c = connect(pg.url()); ResultSet rs = c.createStatement().executeQuery("SELECT v FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("from before");
      }
    }
    // and it stays locked across restarts, with the same password
    try (EmbeddedPostgresServer again = EmbeddedPostgresServer.start(dir, 0, Map.of())) {
      assertLocked(again, dir);
      assertThat(EmbeddedPostgresServer.runningUrl(dir)).contains(again.url());
    }
  }

  private static void assertLocked(EmbeddedPostgresServer pg, Path dir) throws Exception {
    Path passwordFile = EmbeddedPostgresServer.passwordFile(dir);
    assertThat(Files.getPosixFilePermissions(passwordFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(pg.url().password()).contains(Files.readString(passwordFile).trim());
    // no password, or a wrong one: refused, so no one else can reach a superuser (COPY ... TO PROGRAM)
    assertThatThrownBy(() -> DriverManager.getConnection(pg.url().jdbcUrl(), "postgres", null).close())
      .isInstanceOf(SQLException.class).hasMessageContaining("password");
    assertThatThrownBy(() -> DriverManager.getConnection(pg.url().jdbcUrl(), "postgres", "guess").close())
      .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
    try (Connection c = connect(pg.url())) {
      assertThat(show(c, "listen_addresses")).isEqualTo("127.0.0.1");
      Path socketDir = Path.of(show(c, "unix_socket_directories"));
      assertThat(socketDir).isNotEqualTo(Path.of("/tmp"));
      assertThat(Files.getPosixFilePermissions(socketDir)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
      assertThat(show(c, "password_encryption")).isEqualTo("scram-sha-256");
      try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> 'scram-sha-256'")) {
        rs.next();
        assertThat(rs.getInt(1)).as("pg_hba rules that do not ask for the password").isZero();
      }
    }
  }

  private static String show(Connection c, String setting) throws SQLException {
    try (ResultSet rs = c.createStatement().executeQuery("SHOW " + setting)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static Connection connect(PgUrl url) throws SQLException {
    return DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
  }
}
