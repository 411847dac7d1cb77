package dev.conclave.platform.testing;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The PostgreSQL server integration tests use, chosen once per JVM in this order:
 * {@code CONCLAVE_TEST_PG_URL}; Testcontainers where a Docker engine runs; an embedded server.
 * Each caller of {@link #freshDatabase()} gets its own empty database on that server.
 */
public final class TestDatabase {

  public static final String URL_VARIABLE = "CONCLAVE_TEST_PG_URL";

  private static PgUrl server;

  private TestDatabase() {
  }

  /** A new, empty database, isolated from every other test's. */
  public static PgUrl freshDatabase() {
    PgUrl admin = server();
    String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    execute(admin, "CREATE DATABASE " + name);
    return admin.withDatabase(name);
  }

  /** Runs one statement over JDBC (blocking, for test set-up and fault injection). */
  public static void execute(PgUrl url, String sql) {
    try (Connection c = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
         Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test database statement failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  public static synchronized PgUrl server() {
    if (server == null) {
      server = choose();
    }
    return server;
  }

  private static PgUrl choose() {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      return PgUrl.parse(URL_VARIABLE, url);
    }
    if (dockerAvailable()) {
      return Containers.postgres();
    }
    return embedded();
  }

  private static boolean dockerAvailable() {
    // Testcontainers' own probe is slow and loud when there is plainly no engine to find
    boolean hint = System.getenv("DOCKER_HOST") != null || java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"))
      || java.nio.file.Files.exists(java.nio.file.Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
    if (!hint) {
      return false;
    }
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  private static PgUrl embedded() {
    try {
      Path dir = Files.createTempDirectory("conclave-test-pg");
      // test data is disposable: trade durability for speed
      EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0,
        Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off"));
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        pg.close();
        deleteTree(dir);
      }, "test-pg-stop"));
      return pg.url();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort clean-up of a temp dir
    }
  }

  /** Kept apart so the Testcontainers classes load only when a Docker engine exists. */
  private static final class Containers {
    static PgUrl postgres() {
      var container = new org.testcontainers.containers.PostgreSQLContainer<>("postgres:17-alpine");
      container.start();
      Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "test-pg-container-stop"));
      return PgUrl.parse(URL_VARIABLE, "postgresql://" + container.getUsername() + ":" + container.getPassword() + "@"
        + container.getHost() + ":" + container.getMappedPort(5432) + "/" + container.getDatabaseName());
    }
  }
}
