package dev.conclave.agentruntime.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings table of agent-runtime/README.md is the code's list, and values resolve flag, then environment, then file. */
class SettingsDocTest {

  @Test
  void theReadmeTableListsEverySettingAsTheCodeDefinesIt() throws Exception {
    List<String> rows = Files.readAllLines(Path.of("README.md")).stream()
      .filter(l -> l.startsWith("| `--") || l.startsWith("| | `CONCLAVE_")).toList();
    List<String> expected = new ArrayList<>();
    for (Setting s : Setting.values()) {
      expected.add("| " + s.flag().map(f -> "`" + f + " " + s.label() + "` ").orElse("") + "| `" + s.env() + "` |"
        + s.defaultValue().map(d -> " `" + d + "` ").orElse(" ") + "| " + s.description() + " |");
    }
    assertThat(rows).containsExactlyElementsOf(expected);
  }

  @Test
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("agent.json");
    Files.writeString(file, "{\"backend\":\"openai\",\"model\":\"from-file\",\"name\":\"file-name\",\"capabilities\":[\"chat\",\"notes\"]}");
    SettingValues v = SettingValues.of(Map.of(Setting.CONFIG, file.toString(), Setting.NAME, "flag-name"),
      Map.of("CONCLAVE_AGENT_MODEL", "from-env", "CONCLAVE_AGENT_NAME", "env-name"));
    assertThat(v.get(Setting.NAME)).contains("flag-name");
    assertThat(v.get(Setting.MODEL)).contains("from-env");
    assertThat(v.get(Setting.BACKEND)).contains("openai");
    assertThat(v.get(Setting.CAPABILITIES)).contains("chat,notes");
    assertThat(v.get(Setting.ENDPOINTS)).contains("localhost:50051");

    Files.writeString(file, "{\"bakend\":\"openai\"}");
    assertThatThrownBy(() -> SettingValues.of(Map.of(Setting.CONFIG, file.toString()), Map.of()))
      .hasMessageContaining("unknown key 'bakend'");
  }

  @Test
  void configErrorsNameTheSetting(@TempDir Path dir) {
    Map<String, String> env = Map.of("CONCLAVE_AGENT_TOKEN", "t");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(Setting.BACKEND, "openai"), env), "h"))
      .hasMessageContaining("--model (or CONCLAVE_AGENT_MODEL) is required");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(Setting.BACKEND, "gpt"), env), "h"))
      .hasMessageContaining("unknown backend 'gpt'");
    assertThatThrownBy(() -> RuntimeConfig.from(SettingValues.of(Map.of(), Map.of()), "h"))
      .hasMessageContaining("CONCLAVE_AGENT_TOKEN");
    RuntimeConfig c = RuntimeConfig.from(SettingValues.of(Map.of(Setting.WORKDIR, dir.toString(), Setting.MODE, "plan"), env), "h");
    assertThat(c.policy().mode().wireName()).isEqualTo("plan");
    assertThat(c.agentId()).as("stable for the same host, name and directory")
      .isEqualTo(RuntimeConfig.from(SettingValues.of(Map.of(Setting.WORKDIR, dir.toString()), env), "h").agentId());
  }
}
