package dev.conclave.agentruntime.config;

import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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
    List<String> rows = Files.readAllLines(Path.of("..").resolve(new AgentSettings().documentedIn())).stream()
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
    assertThat(ServiceLoader.load(SettingCatalogue.class)).hasAtLeastOneElementOfType(AgentSettings.class);
  }

  @Test
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("agent.json");
    Files.writeString(file, "{\"backend\":\"openai\",\"model\":\"from-file\",\"name\":\"file-name\",\"capabilities\":[\"chat\",\"notes\"]}");
    SettingValues v = SettingValues.of(Map.of(AgentSettings.CONFIG, file.toString(), AgentSettings.NAME, "flag-name"),
      Map.of("CONCLAVE_AGENT_MODEL", "from-env", "CONCLAVE_AGENT_NAME", "env-name"));
    assertThat(v.get(AgentSettings.NAME)).contains("flag-name");
    assertThat(v.get(AgentSettings.MODEL)).contains("from-env");
    assertThat(v.get(AgentSettings.BACKEND)).contains("openai");
    assertThat(v.get(AgentSettings.CAPABILITIES)).contains("chat,notes");
    assertThat(v.get(AgentSettings.APPROVAL_TIMEOUT)).contains("300");

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
}
