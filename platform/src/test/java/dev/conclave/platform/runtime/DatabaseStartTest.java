package dev.conclave.platform.runtime;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.db.NodeDatabase;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Embedded PostgreSQL starts beside Vert.x (issue 45), not before it: a PostgreSQL that cannot start
 * must still fail the node with the exception and message it always did, and leave nothing behind
 * (the data dir free again).
 */
class DatabaseStartTest {

  @Test
  void aPostgresqlThatCannotStartFailsTheNodeWithItsOwnMessage(@TempDir Path data) throws Exception {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_ROLES", "gateway",
      "CONCLAVE_BIND_HOST", "127.0.0.1", "CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next()),
      "CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()), "CONCLAVE_SECRETS_KEY", TestNode.SECRETS_KEY));
    // where the cluster's directory should be, a file: PostgreSQL cannot start there
    Files.writeString(config.embeddedPgDir(), "not a directory");
    Throwable direct = catchThrowable(() -> NodeDatabase.open(config));
    assertThat(direct).as("opening the database alone fails").isNotNull();

    Throwable started = catchThrowable(() -> NodeRuntime.start(config, List.of()));
    assertThat(started).isExactlyInstanceOf(direct.getClass()).hasMessage(direct.getMessage());

    // the failed start let go of the data dir: a second start meets the same failure, not "in use by"
    assertThatThrownBy(() -> NodeRuntime.start(config, List.of())).hasMessage(direct.getMessage());
  }

  @Test
  void theDatabaseComesBackFromItsOwnThread(@TempDir Path data) {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_DATA_DIR", data.toString(),
      "CONCLAVE_PG_URL", dev.conclave.platform.testing.TestDatabase.freshDatabase().full()));
    DatabaseStart start = DatabaseStart.begin(config, java.util.List.of());
    try (NodeDatabase database = start.await()) {
      assertThat(database.embedded()).isFalse();
      assertThat(database.url().full()).isEqualTo(config.pgUrl().orElseThrow().full());
    }
  }

  @Test
  void theScriptsAreReadBesideTheDatabaseAndTheHistoryOverThePool(@TempDir Path data) throws Exception {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_DATA_DIR", data.toString(),
      "CONCLAVE_PG_URL", dev.conclave.platform.testing.TestDatabase.freshDatabase().full()));
    DatabaseStart start = DatabaseStart.begin(config, List.of(new dev.conclave.platform.db.SchemaMigration("auth")));
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (NodeDatabase database = start.await()) {
      var pool = dev.conclave.platform.db.PgPools.create(vertx, database.url(), 1, 10);
      var pending = dev.conclave.platform.testing.Await.await(dev.conclave.platform.db.Migrations.pending(pool, start.awaitScripts()));
      assertThat(pending.withoutHistory()).extracting(dev.conclave.platform.db.SchemaMigration::schema).containsExactly("auth");
      dev.conclave.platform.db.Migrations.apply(database.url(), pending);
      var url = database.url();
      try (var c = java.sql.DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
           var rs = c.createStatement().executeQuery("SELECT count(*) FROM auth.principals")) {
        assertThat(rs.next()).isTrue();
      }
    } finally {
      dev.conclave.platform.testing.Await.await(vertx.close());
    }
  }
}
