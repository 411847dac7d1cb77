package dev.conclave.e2e.docs;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./conclave help}: the launcher's own comment block, every command it takes, and nothing of the script after it. */
class LauncherHelpTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void helpListsTheCommandsAndNothingElse() throws Exception {
    Process p = new ProcessBuilder("bash", ROOT.resolve("conclave").toString(), "help").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    List<String> lines = out.lines().toList();
    assertThat(lines).isNotEmpty();
    for (String command : List.of("up", "test", "token", "postgres", "restore", "agent", "session", "send", "history",
      "agents", "pause", "context", "completion", "cluster", "build")) {
      assertThat(lines).as("help names ./conclave " + command).anyMatch(l -> l.strip().startsWith("./conclave " + command));
    }
    // it printed 'set -euo pipefail' as its last line: the script's first line of code
    assertThat(lines).noneMatch(l -> l.contains("set -euo") || l.contains("ROOT=") || l.startsWith("#"));
  }
}
