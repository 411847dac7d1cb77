package dev.conclave.cli;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ContextStoreTest {

  @TempDir
  Path home;

  @Test
  void theFileLivesUnderXdgConfigHomeElseHomesConfig() {
    assertThat(ContextStore.forUser(Map.of("XDG_CONFIG_HOME", "/x/cfg", "HOME", "/h")).file())
      .isEqualTo(Path.of("/x/cfg/conclave/contexts.json"));
    assertThat(ContextStore.forUser(Map.of("HOME", "/h")).file()).isEqualTo(Path.of("/h/.config/conclave/contexts.json"));
    assertThat(ContextStore.forUser(Map.of("XDG_CONFIG_HOME", "relative", "HOME", "/h")).file())
      .as("the XDG spec: a relative value is ignored").isEqualTo(Path.of("/h/.config/conclave/contexts.json"));
  }

  @Test
  void theFirstContextBecomesCurrentAndUseSwitchesIt() {
    ContextStore store = ContextStore.forUser(Map.of("XDG_CONFIG_HOME", home.toString()));
    store.put(new ContextStore.Context("local", "http://127.0.0.1:8080", "/t/admin.token", null));
    store.put(new ContextStore.Context("prod", "https://c.example.com", "/t/prod.token", "/t/ca.pem"));
    assertThat(store.current()).contains("local");
    assertThat(store.use("prod")).isTrue();
    assertThat(store.use("nope")).isFalse();
    assertThat(store.current()).contains("prod");
    assertThat(store.find("prod").orElseThrow().caFile()).isEqualTo("/t/ca.pem");
    assertThat(store.all()).containsOnlyKeys("local", "prod");
    assertThat(store.remove("prod")).isTrue();
    assertThat(store.current()).isEmpty();
  }

  @Test
  void theFileIsTheOwnersOnlyEvenWhenItWasMadeWider() throws Exception {
    ContextStore store = ContextStore.forUser(Map.of("XDG_CONFIG_HOME", home.toString()));
    store.put(new ContextStore.Context("local", "http://127.0.0.1:8080", "/t/admin.token", null));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file().getParent()))).isEqualTo("rwx------");
    Files.setPosixFilePermissions(store.file(), PosixFilePermissions.fromString("rw-r--r--"));
    store.use("local");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
    assertThat(new JsonObject(Files.readString(store.file())).getJsonObject("contexts").getJsonObject("local").getString("tokenFile"))
      .isEqualTo("/t/admin.token");
  }

  @Test
  void aFileThatIsNotJsonIsAUsageErrorNamingIt() throws Exception {
    ContextStore store = ContextStore.forUser(Map.of("XDG_CONFIG_HOME", home.toString()));
    Files.createDirectories(store.file().getParent());
    Files.writeString(store.file(), "not json");
    assertThatThrownBy(store::all).isInstanceOf(CliFailure.class).hasMessageContaining(store.file().toString())
      .satisfies(e -> assertThat(((CliFailure) e).exitCode()).isEqualTo(ExitCodes.USAGE));
  }
}
