package dev.conclave.platform.secrets;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the secrets key comes from, and that a node holding the wrong one refuses to start with
 * one line naming CONCLAVE_SECRETS_KEY, before it could store or deliver anything under it.
 */
class SecretsKeyTest {

  private static final String KEY_A = key(1);
  private static final String KEY_B = key(2);

  @Test
  void aSingleNodeGeneratesAPrivateKeyFileOnFirstStartAndKeepsIt() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Path dir = Files.createTempDirectory("conclave-secrets-key");
    Path file = dir.resolve(SecretsKey.FILE_NAME);
    try (TestNode node = generated(db, dir).start()) {
      assertThat(node.dataDir().resolve(SecretsKey.FILE_NAME)).isEqualTo(file);
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    String content = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(Base64.getDecoder().decode(content.trim())).hasSize(32);
    try (TestNode again = generated(db, dir).start()) {
      assertThat(Files.readString(file, StandardCharsets.UTF_8)).as("reused, not replaced").isEqualTo(content);
    }
  }

  @Test
  void aNodeWithAnotherKeyRefusesToStartWithOneLineNamingTheVariable() {
    PgUrl db = TestDatabase.freshDatabase();
    try (TestNode first = TestNode.builder().database(db).env("CONCLAVE_SECRETS_KEY", KEY_A).start()) {
      assertThat(first.runtime().context().secrets()).isNotNull();
    }
    assertThatThrownBy(() -> TestNode.builder().database(db).env("CONCLAVE_SECRETS_KEY", KEY_B).start().close())
      .satisfies(e -> {
        assertThat(e.getMessage()).contains("CONCLAVE_SECRETS_KEY: wrong key").doesNotContain("\n").doesNotContain(KEY_B);
        assertThat(e).hasRootCauseInstanceOf(ConfigException.class);
      });
    try (TestNode rightKey = TestNode.builder().database(db).env("CONCLAVE_SECRETS_KEY", KEY_A).start()) {
      assertThat(rightKey.runtime().context().secrets()).as("the refused node changed nothing").isNotNull();
    }
  }

  @Test
  void aLostKeyFileIsReportedNotSilentlyReplaced() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    try (TestNode first = generated(db, Files.createTempDirectory("conclave-secrets-a")).start()) {
      assertThat(first.runtime().context().secrets()).isNotNull();
    }
    Path other = Files.createTempDirectory("conclave-secrets-b");
    assertThatThrownBy(() -> generated(db, other).start().close())
      .hasMessageContaining("CONCLAVE_SECRETS_KEY: unset, and this data dir had no secrets.key, but this database's secrets were "
        + "encrypted with a key");
    // the generated key is now on disk; it stays the wrong key on every later start
    assertThatThrownBy(() -> generated(db, other).start().close())
      .hasMessageContaining("CONCLAVE_SECRETS_KEY: unset, and the key in " + other.resolve(SecretsKey.FILE_NAME) + " is the wrong key");
  }

  @Test
  void clusteredNodesMustBeGivenTheKey() {
    ConclaveConfig clustered = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_MEMBERS", "127.0.0.1:5701",
      "CONCLAVE_AUTH_SECRET", "0123456789abcdef0123456789abcdef", "CONCLAVE_DATA_DIR", "/nonexistent/conclave"));
    assertThatThrownBy(() -> SecretsKey.resolve(clustered)).isInstanceOf(ConfigException.class)
      .hasMessageStartingWith("CONCLAVE_SECRETS_KEY: must be set when the node runs clustered");
  }

  @Test
  void aMalformedKeyIsRefusedWithoutEchoingIt() {
    for (String bad : new String[] {"dG9vLXNob3J0", "not base64 at all!", KEY_A + KEY_A}) {
      assertThatThrownBy(() -> ConclaveConfig.from(Map.of("CONCLAVE_SECRETS_KEY", bad))).isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("CONCLAVE_SECRETS_KEY: must be the base64 of exactly 32 random bytes")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(bad));
    }
    assertThat(ConclaveConfig.from(Map.of("CONCLAVE_SECRETS_KEY", KEY_A)).find(NodeSettings.SECRETS_KEY)).hasValueSatisfying(k -> assertThat(k).hasSize(32));
  }

  private static TestNode.Builder generated(PgUrl db, Path dir) {
    return TestNode.builder().database(db).dataDir(dir).env("CONCLAVE_SECRETS_KEY", "");
  }

  private static String key(int fill) {
    byte[] key = new byte[32];
    java.util.Arrays.fill(key, (byte) fill);
    return Base64.getEncoder().encodeToString(key);
  }
}
