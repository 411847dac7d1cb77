package dev.conclave.e2e;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node jar as users run it: a real process on a fresh data dir with embedded PostgreSQL,
 * stopped with SIGTERM and with SIGKILL, and started again on the same data.
 */
class NodeLifecycleIT {

  private Path root;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("conclave-e2e");
  }

  @AfterEach
  void removeRoot() {
    TestDatabase.deleteTree(root);
  }

  @Test
  void freshStartTermRestartKeepsData() {
    Path data = root.resolve("data");
    String principalId;
    try (NodeProcess node = NodeProcess.start(data, Map.of())) {
      Duration ready = node.awaitReady(Duration.ofSeconds(60));
      assertThat(ready).as("cold start to ready").isLessThan(Duration.ofSeconds(60));
      assertThat(data.resolve("pg").resolve("PG_VERSION")).exists();
      assertThat(data.resolve("admin.token")).isNotEmptyFile();
      assertThat(node.logText()).contains("ready node=", "admin-token=" + data.resolve("admin.token"));

      // a principal created while the node runs, through the CLI against the node's own database
      String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "kept-agent", "--ttl", "1h");
      assertThat(token.split("\\.")).hasSize(3);
      principalId = subject(token);

      long t0 = System.nanoTime();
      assertThat(node.terminate(Duration.ofSeconds(15))).as("exit code after SIGTERM").isZero();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
      assertThat(node.logText()).contains("stopped node=", "embedded PostgreSQL stopped");
    }

    try (NodeProcess again = NodeProcess.start(data, Map.of())) {
      again.awaitReady(Duration.ofSeconds(60));
      assertThat(again.logText()).doesNotContain("first start, wrote an admin token");
      // the principal survived the restart: a token can be issued for it by id
      String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--principal", principalId);
      assertThat(subject(token)).isEqualTo(principalId);
      assertThat(again.terminate(Duration.ofSeconds(15))).isZero();
    }
  }

  @Test
  void aKilledNodeRestartsOnItsDataDir() {
    Path data = root.resolve("data");
    try (NodeProcess node = NodeProcess.start(data, Map.of())) {
      node.awaitReady(Duration.ofSeconds(60));
      node.kill();
    }
    // the killed node's PostgreSQL is still running on the data dir; the next start must cope
    try (NodeProcess again = NodeProcess.start(data, Map.of())) {
      again.awaitReady(Duration.ofSeconds(90));
      assertThat(again.terminate(Duration.ofSeconds(15))).isZero();
    }
  }

  @Test
  void aBadSettingFailsFastWithOneLineNamingIt() throws Exception {
    try (NodeProcess node = NodeProcess.start(root.resolve("data"), Map.of("CONCLAVE_ROLES", "gateway,teleporter"))) {
      assertThat(node.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
      assertThat(node.logText().strip())
        .isEqualTo("configuration error: CONCLAVE_ROLES: unknown role 'teleporter' (known: gateway, coordinator, pack-host)");
    }
  }

  private static String subject(String jwt) {
    String payload = new String(java.util.Base64.getUrlDecoder().decode(jwt.split("\\.")[1]));
    return new io.vertx.core.json.JsonObject(payload).getString("sub");
  }
}
