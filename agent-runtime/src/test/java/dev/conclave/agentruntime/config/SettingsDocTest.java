package dev.conclave.agentruntime.config;

import dev.conclave.agentruntime.backend.BackendKind;
import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The settings table of agent-runtime/README.md is the code's list ({@link AgentSettings}, declared
 * as the shared {@link Setting} type), and values resolve flag, then environment, then file.
 */
class SettingsDocTest {

  @Test
  void theReadmeTableListsEverySettingAsTheCodeDefinesIt() throws Exception {
    List<String> rows = Files.readAllLines(Path.of("..").resolve(new AgentSettings.Catalogue().documentedIn())).stream()
      .filter(l -> l.startsWith("| `--") || l.startsWith("| | `CONCLAVE_")).toList();
    List<String> expected = new ArrayList<>();
    for (Setting<?> s : AgentSettings.all()) {
      expected.add("| " + s.flag().map(f -> "`" + f.name() + " " + f.label() + "` ").orElse("") + "| `" + s.name() + "` |"
        + s.defaultText().map(d -> " `" + d + "` ").orElse(" ") + "| " + s.description() + " |");
    }
    assertThat(rows).containsExactlyElementsOf(expected);
  }

  @Test
  void everySettingIsTheAgentProgramsAndTheTokenIsNeverAFlag() {
    assertThat(AgentSettings.all()).isNotEmpty().allSatisfy(s -> assertThat(s.readers()).containsExactly(Setting.Reader.AGENT));
    assertThat(AgentSettings.TOKEN.flag()).isEmpty();
    assertThat(AgentSettings.TOKEN.fileKey()).as("nor a key of the config file").isEmpty();
    assertThat(AgentSettings.CONFIG.fileKey()).as("a config file names no other").isEmpty();
    assertThat(AgentSettings.all()).as("a config file's key is its flag's name without dashes")
      .filteredOn(s -> s.fileKey().isPresent())
      .allSatisfy(s -> assertThat(s.flag().map(Setting.Flag::name)).contains("--" + s.fileKey().get()));
  }

  @Test
  void theCatalogueIsFoundWhereEveryModulesIs() {
    assertThat(ServiceLoader.load(SettingCatalogue.class)).hasAtLeastOneElementOfType(AgentSettings.Catalogue.class);
  }

  @Test
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("agent.json");
    Files.writeString(file, "{\"backend\":\"openai\",\"model\":\"from-file\",\"name\":\"file-name\",\"capabilities\":[\"chat\",\"notes\"]}");
    SettingValues v = SettingValues.of(Map.of(AgentSettings.CONFIG, file.toString(), AgentSettings.NAME, "flag-name"),
      Map.of("CONCLAVE_AGENT_MODEL", "from-env", "CONCLAVE_AGENT_NAME", "env-name"));
    assertThat(v.get(AgentSettings.NAME)).contains("flag-name");
    assertThat(v.get(AgentSettings.MODEL)).contains("from-env");
    assertThat(v.get(AgentSettings.BACKEND)).contains(BackendKind.OPENAI);
    assertThat(v.get(AgentSettings.CAPABILITIES)).contains(List.of("chat", "notes"));
    assertThat(v.get(AgentSettings.APPROVAL_TIMEOUT)).contains(Duration.ofSeconds(300));

    Files.writeString(file, "{\"bakend\":\"openai\"}");
    assertThatThrownBy(() -> SettingValues.of(Map.of(AgentSettings.CONFIG, file.toString()), Map.of()))
      .hasMessageContaining("unknown key 'bakend'");
  }

  @Test
  void configErrorsNameTheSetting(@TempDir Path dir) {
    Map<String, String> env = Map.of("CONCLAVE_AGENT_TOKEN", "t");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.BACKEND, "openai"), env), "h"))
      .hasMessageContaining("--model (or CONCLAVE_AGENT_MODEL) is required");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.BACKEND, "gpt"), env), "h"))
      .hasMessageContaining("unknown backend 'gpt'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(), Map.of()), "h"))
      .hasMessageContaining("CONCLAVE_AGENT_TOKEN");
    RuntimeConfig c = RuntimeConfig.from(
      SettingValues.of(Map.of(AgentSettings.WORKDIR, dir.toString(), AgentSettings.MODE, "plan"), env), "h");
    assertThat(c.policy().mode().wireName()).isEqualTo("plan");
    assertThat(c.agentId()).as("stable for the same host, name and directory")
      .isEqualTo(RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.WORKDIR, dir.toString()), env), "h").agentId());
  }

  @Test
  void aBadValueFailsWithTheErrorThatNamesItsFlagWhereverItWasGiven() {
    Map<String, String> env = Map.of("CONCLAVE_AGENT_TOKEN", "t");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.APPROVAL_TIMEOUT, "-3"), env), "h"))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--approval-timeout must be a positive whole number, got '-3'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(),
      Map.of("CONCLAVE_AGENT_TOKEN", "t", "CONCLAVE_AGENT_MAX_TOOL_ROUNDS", " many ")), "h"))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--max-tool-rounds must be a positive whole number, got 'many'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.BASE_URL, "ftp://x"), env), "h"))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--base-url must start with http:// or https://, got 'ftp://x'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.MODE, "fast"), env), "h"))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("mode must be auto, ask or plan, got 'fast'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(AgentSettings.TLS, "maybe"), env), "h"))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--tls must be on or off, got 'maybe'");

    assertThatThrownBy(() -> SwarmOptions.from(SettingValues.of(Map.of(AgentSettings.SWARM, "Maybe"), Map.of()), BackendKind.ECHO))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--swarm must be true or false, got 'maybe'");
    assertThatThrownBy(() -> SwarmOptions.from(SettingValues.of(Map.of(AgentSettings.SWARM, "true", AgentSettings.SWARM_URL, "ftp://x"),
      Map.of()), BackendKind.ECHO))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--swarm-url must be an http:// or https:// address, got 'ftp://x'");
    assertThatThrownBy(() -> SwarmOptions.from(SettingValues.of(Map.of(AgentSettings.SWARM, "true"),
      Map.of("CONCLAVE_AGENT_MAX_TASK_MINUTES", "0")), BackendKind.ECHO))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--max-task-minutes must be a whole number from 1 to 1000000, got '0'");
    assertThatThrownBy(() -> SwarmOptions.from(SettingValues.of(Map.of(AgentSettings.SWARM, "true", AgentSettings.LEASE_WAIT, "1000001"),
      Map.of()), BackendKind.ECHO))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--lease-wait must be a whole number from 1 to 1000000, got '1000001'");
  }
}
