package dev.conclave.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Flag, then environment, then context, then the local node's defaults: for the URL, the token and the CA file. */
class TargetsTest {

  @TempDir
  Path dir;
  private ContextStore store;
  private Path contextToken;
  private Path flagToken;

  private static final Targets.Flags NO_FLAGS = new Targets.Flags(null, null, null, null);

  @BeforeEach
  void setUp() throws Exception {
    store = new ContextStore(dir.resolve("cfg/contexts.json"));
    contextToken = Files.writeString(dir.resolve("ctx.token"), "ctx-token\n");
    flagToken = Files.writeString(dir.resolve("flag.token"), "flag-token");
    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data/admin.token"), "admin-token\n");
  }

  @Test
  void withNothingItIsTheLocalNodeAndItsAdminToken() {
    Target t = Targets.resolve(NO_FLAGS, ClientSettings.from(Map.of("CONCLAVE_DATA_DIR", dir.resolve("data").toString(),
      "CONCLAVE_HTTP_PORT", "18080")), store);
    assertThat(t.url()).isEqualTo(URI.create("http://127.0.0.1:18080"));
    assertThat(t.token()).isEqualTo("admin-token");
    assertThat(t.caFile()).isEmpty();
  }

  @Test
  void theCurrentContextBeatsTheDefaultsAndTheEnvironmentBeatsTheContext() {
    store.put(new ContextStore.Context("prod", "https://c.example.com", contextToken.toString(), "/ca.pem"));
    Map<String, String> env = Map.of("CONCLAVE_DATA_DIR", dir.resolve("data").toString());
    Target fromContext = Targets.resolve(NO_FLAGS, ClientSettings.from(env), store);
    assertThat(fromContext.url()).isEqualTo(URI.create("https://c.example.com"));
    assertThat(fromContext.token()).isEqualTo("ctx-token");
    assertThat(fromContext.caFile()).contains(Path.of("/ca.pem"));

    Target fromEnv = Targets.resolve(NO_FLAGS, ClientSettings.from(Map.of("CONCLAVE_URL", "http://10.0.0.1:9000", "CONCLAVE_TOKEN", "env-token",
      "CONCLAVE_TLS_CA_FILE", "/env-ca.pem")), store);
    assertThat(fromEnv.url()).isEqualTo(URI.create("http://10.0.0.1:9000"));
    assertThat(fromEnv.token()).isEqualTo("env-token");
    assertThat(fromEnv.caFile()).contains(Path.of("/env-ca.pem"));

    Target fromFlags = Targets.resolve(new Targets.Flags(List.of(URI.create("http://flag:1")), flagToken, Path.of("/flag-ca.pem"), null),
      ClientSettings.from(Map.of("CONCLAVE_URL", "http://10.0.0.1:9000", "CONCLAVE_TOKEN", "env-token")), store);
    assertThat(fromFlags.url()).isEqualTo(URI.create("http://flag:1"));
    assertThat(fromFlags.token()).isEqualTo("flag-token");
    assertThat(fromFlags.caFile()).contains(Path.of("/flag-ca.pem"));
  }

  @Test
  void aNamedContextIsUsedInsteadOfTheCurrentOneAndAnUnknownOneIsAUsageError() {
    store.put(new ContextStore.Context("a", "http://a:1", contextToken.toString(), null));
    store.put(new ContextStore.Context("b", "http://b:2", flagToken.toString(), null));
    assertThat(Targets.resolve(new Targets.Flags(null, null, null, "b"), ClientSettings.from(Map.of()), store).url())
      .isEqualTo(URI.create("http://b:2"));
    assertThatThrownBy(() -> Targets.resolve(new Targets.Flags(null, null, null, "c"), ClientSettings.from(Map.of()), store))
      .isInstanceOf(CliFailure.class).hasMessageContaining("no context named c");
  }

  @Test
  void aMissingTokenFileOrABadUrlIsAUsageErrorNotAStackTrace() {
    assertThatThrownBy(() -> Targets.resolve(NO_FLAGS, ClientSettings.from(Map.of("CONCLAVE_DATA_DIR", dir.resolve("nowhere").toString())),
      store))
      .isInstanceOf(CliFailure.class).hasMessageContaining("cannot read the token file")
      .satisfies(e -> assertThat(((CliFailure) e).exitCode()).isEqualTo(ExitCodes.USAGE));
    assertThatThrownBy(() -> Targets.parseUrl("ftp://x")).isInstanceOf(CliFailure.class);
  }
}
