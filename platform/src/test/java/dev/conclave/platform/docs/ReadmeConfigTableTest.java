package dev.conclave.platform.docs;

import dev.conclave.platform.config.ConfigKey;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's configuration table stays true: every variable the kernel reads is documented there. */
class ReadmeConfigTableTest {

  @Test
  void everyConfigKeyIsInTheReadmeTable() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (ConfigKey key : ConfigKey.values()) {
      assertThat(readme).as("README documents " + key.env()).contains("| `" + key.env() + "` |");
    }
  }
}
