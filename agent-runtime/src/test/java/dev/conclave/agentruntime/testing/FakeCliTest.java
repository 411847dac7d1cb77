package dev.conclave.agentruntime.testing;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stand-in CLIs can be run straight from a fresh clone (by hand, or with {@code --command}), as
 * the README describes: git keeps their executable bit.
 */
class FakeCliTest {

  @Test
  void theStandInsAreExecutableInTheSourceTree() {
    for (String name : List.of("claude", "codex")) {
      Path cli = Path.of("src/test/resources/fake-cli", name);
      assertThat(cli).exists();
      assertThat(Files.isExecutable(cli)).as(cli + " is executable (git update-index --chmod=+x)").isTrue();
    }
  }
}
