package dev.conclave.platform.docs;

import dev.conclave.platform.testing.ConfigTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's configuration table stays true: every declared setting of every module on the class
 * path has a row whose description and default are the declaration's, word for word. Here that is
 * platform's own settings ({@code NodeSettings}); the node's {@code AllSettingsTest}, which has every
 * module, checks the same for all of them and that the table has no row without a declaration.
 */
class ReadmeConfigTableTest {

  @Test
  void everySettingOnTheClassPathIsInTheReadmeTableAsDeclared() {
    assertThat(ConfigTable.declared()).isNotEmpty();
    ConfigTable.assertDocumented(ConfigTable.declared(), ConfigTable.readmeTable());
  }
}
