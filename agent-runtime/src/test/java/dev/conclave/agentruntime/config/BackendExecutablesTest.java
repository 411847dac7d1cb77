package dev.conclave.agentruntime.config;

import dev.conclave.agentruntime.cli.AgentMain;
import dev.conclave.settings.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A CLI backend whose executable (or the curl its tool hook runs) is missing fails at start-up with
 * one line naming what is missing and the setting that points at it: it used to register, look
 * healthy and fail only the first message.
 */
class BackendExecutablesTest {

  @TempDir
  Path dir;

  private Path bin(String... names) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin-" + String.join("-", names)));
    for (String name : names) {
      Path exe = Files.writeString(bin.resolve(name), "#!/bin/sh\nexit 0\n");
      Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return bin;
  }

  private RuntimeConfig config(String backend, Path path, Map<Setting<?>, String> more) {
    Map<Setting<?>, String> flags = new HashMap<>(more);
    flags.put(AgentSettings.BACKEND, backend);
    flags.put(AgentSettings.WORKDIR, dir.toString());
    return RuntimeConfig.from(SettingValues.of(flags, Map.of("CONCLAVE_AGENT_TOKEN", "t", "PATH", path.toString())), "h");
  }

  @Test
  void aMissingClaudeStopsTheStartWithOneLineNamingTheSetting() throws IOException {
    assertThatThrownBy(() -> config("claude-cli", bin("curl"), Map.of()))
      .isInstanceOf(IllegalArgumentException.class)
      .hasMessage("--backend claude-cli runs 'claude', which is not on the PATH: install Claude Code, "
        + "or point --command (CONCLAVE_AGENT_COMMAND) at it");
    assertThat(config("claude-cli", bin("claude", "curl"), Map.of()).backend().cliName()).isEqualTo("claude-cli");
  }

  @Test
  void aMissingCodexStopsTheStartWithOneLineNamingTheSetting() throws IOException {
    assertThatThrownBy(() -> config("codex-cli", bin("curl"), Map.of()))
      .isInstanceOf(IllegalArgumentException.class)
      .hasMessage("--backend codex-cli runs 'codex', which is not on the PATH: install Codex, "
        + "or point --command (CONCLAVE_AGENT_COMMAND) at it");
    assertThat(config("codex-cli", bin("codex", "curl"), Map.of()).backend().cliName()).isEqualTo("codex-cli");
  }

  @Test
  void aCommandThatIsMissingOrNotExecutableIsNamed() throws IOException {
    Path plain = Files.writeString(dir.resolve("claude-plain"), "#!/bin/sh\n");
    for (String command : List.of(dir.resolve("missing").toString(), plain.toString(), "no-such-claude")) {
      assertThatThrownBy(() -> config("claude-cli", bin("curl"), Map.of(AgentSettings.COMMAND, command)))
        .hasMessageStartingWith("--command " + command + ": ");
    }
    // a path with a slash is taken from the working directory, as the run takes it
    Path mine = Files.writeString(dir.resolve("my-claude"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwx------"));
    assertThat(config("claude-cli", bin("curl"), Map.of(AgentSettings.COMMAND, "./my-claude")).command()).contains("./my-claude");
  }

  @Test
  void aMissingCurlStopsTheStartOfEitherCliBackend() throws IOException {
    assertThatThrownBy(() -> config("claude-cli", bin("claude"), Map.of()))
      .hasMessage("--backend claude-cli needs curl (7.76 or newer) on the PATH for the hook that asks the tool gate "
        + "before every tool; it is not on the PATH");
    assertThatThrownBy(() -> config("codex-cli", bin("codex"), Map.of()))
      .hasMessageStartingWith("--backend codex-cli needs curl");
  }

  @Test
  void theOtherBackendsNeedNoExecutable() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertThat(config("echo", empty, Map.of()).backend().cliName()).isEqualTo("echo");
    assertThat(config("openai", empty, Map.of(AgentSettings.MODEL, "m")).backend().cliName()).isEqualTo("openai");
  }

  /** The program itself, in a JVM of its own whose PATH has curl but no claude: exit code 2 and one line, before connecting. */
  @Test
  void theAgentProgramExitsWithCodeTwoAndOneLine() throws Exception {
    Path token = Files.writeString(dir.resolve("agent.token"), "t\n");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), AgentMain.class.getName(),
      "--backend", "claude-cli", "--token-file", token.toString(), "--workdir", dir.toString(), "--endpoints", "127.0.0.1:1")
      .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(dir.resolve("stderr.txt").toFile());
    pb.environment().put("PATH", bin("curl").toString());
    Process p = pb.start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the program ends by itself (it used to connect and wait)").isTrue();
      String err = Files.readString(dir.resolve("stderr.txt"), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).isEqualTo(2);
      assertThat(err.strip().lines().toList()).containsExactly("conclave agent: --backend claude-cli runs 'claude', which is not "
        + "on the PATH: install Claude Code, or point --command (CONCLAVE_AGENT_COMMAND) at it");
    } finally {
      p.destroyForcibly();
    }
  }
}
