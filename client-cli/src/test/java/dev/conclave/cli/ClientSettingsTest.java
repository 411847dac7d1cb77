package dev.conclave.cli;

import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client commands read their environment through {@link ClientSettings}: its values, and a bad one's error. */
class ClientSettingsTest {

  @Test
  void itReadsTheClientVariablesAndTheLocalNodesDefaults() {
    ClientSettings set = ClientSettings.from(Map.of("CONCLAVE_URL", "https://n.example.com:8443", "CONCLAVE_TOKEN", "t",
      "CONCLAVE_TLS_CA_FILE", "/ca.pem", "CONCLAVE_HTTP_PORT", "18080", "CONCLAVE_DATA_DIR", "/var/conclave"));
    assertThat(set.url()).contains(URI.create("https://n.example.com:8443"));
    assertThat(set.token()).contains("t");
    assertThat(set.caFile()).contains(Path.of("/ca.pem"));
    assertThat(set.localNodeUrl()).isEqualTo(URI.create("http://127.0.0.1:18080"));
    assertThat(set.localAdminTokenFile()).isEqualTo(Path.of("/var/conclave/admin.token"));

    ClientSettings none = ClientSettings.from(Map.of());
    assertThat(none.url()).isEmpty();
    assertThat(none.token()).isEmpty();
    assertThat(none.caFile()).isEmpty();
    assertThat(none.localNodeUrl()).isEqualTo(URI.create("http://127.0.0.1:8080"));
  }

  @Test
  void aBadValueFailsWithItsClearErrorWhenItIsRead() {
    assertThatThrownBy(() -> ClientSettings.from(Map.of("CONCLAVE_URL", "ftp://x")).url())
      .isInstanceOf(CliFailure.class).hasMessage("not an http:// or https:// URL: ftp://x");
    assertThatThrownBy(() -> ClientSettings.from(Map.of("CONCLAVE_HTTP_PORT", "eighty")).localNodeUrl())
      .isInstanceOf(ConfigException.class).hasMessage("CONCLAVE_HTTP_PORT: 'eighty' is not a whole number");
  }

  @Test
  void aBadLocalNodeValueDoesNotStopACommandThatNeedsNone(@TempDir Path dir) {
    ClientSettings env = ClientSettings.from(Map.of("CONCLAVE_HTTP_PORT", "eighty", "CONCLAVE_URL", "http://n:1",
      "CONCLAVE_TOKEN", "t"));
    Target target = Targets.resolve(new Targets.Flags(null, null, null, null), env, new ContextStore(dir.resolve("contexts.json")));
    assertThat(target.url()).isEqualTo(URI.create("http://n:1"));
  }
}
