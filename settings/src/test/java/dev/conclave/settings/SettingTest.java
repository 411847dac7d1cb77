package dev.conclave.settings;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The setting type itself: parsing, the one default, failures that name the variable. */
class SettingTest {

  @Test
  void aSettingParsesItsValueAndFallsBackToItsOneDefault() {
    Setting<Integer> retries = Setting.define("CONCLAVE_TEST_RETRIES", Parsers.between(0, 100))
      .readBy(Setting.Reader.COORDINATOR).describedAs("retries").byDefault("2");
    Setting<Boolean> on = Setting.define("CONCLAVE_TEST_ON", Parsers.BOOLEAN)
      .readBy(Setting.Reader.COORDINATOR).describedAs("on").byDefault("true");
    assertThat(retries.get(Map.of())).isEqualTo(2);
    assertThat(retries.get(Map.of("CONCLAVE_TEST_RETRIES", " 7 "))).isEqualTo(7);
    assertThat(retries.documentedDefault()).isEqualTo("`2`");
    assertThat(on.get(Map.of("CONCLAVE_TEST_ON", "OFF"))).isFalse();
    assertThatThrownBy(() -> retries.get(Map.of("CONCLAVE_TEST_RETRIES", "101")))
      .isInstanceOf(ConfigException.class).hasMessageContaining("CONCLAVE_TEST_RETRIES").hasMessageContaining("between 0 and 100");
    assertThatThrownBy(() -> on.get(Map.of("CONCLAVE_TEST_ON", "maybe"))).isInstanceOf(ConfigException.class);
  }

  @Test
  void aProgramsSettingAlsoHasItsFlagAndItsConfigFileKey() {
    Setting<String> endpoints = Setting.define("CONCLAVE_TEST_ENDPOINTS", Parsers.TEXT).readBy(Setting.Reader.AGENT)
      .flag("--endpoints", "HOST:PORT[,...]").fileKey("endpoints").describedAs("endpoints").byDefault("localhost:50051");
    Setting<String> token = Setting.define("CONCLAVE_TEST_TOKEN", Parsers.TEXT).readBy(Setting.Reader.AGENT)
      .describedAs("token").noDefault("");
    assertThat(endpoints.flag()).contains(new Setting.Flag("--endpoints", "HOST:PORT[,...]"));
    assertThat(endpoints.fileKey()).contains("endpoints");
    assertThat(endpoints.defaultText()).contains("localhost:50051");
    assertThat(token.flag()).as("environment only").isEmpty();
    assertThat(token.fileKey()).isEmpty();
    assertThat(token.documentedDefault()).isEmpty();
    assertThatThrownBy(() -> Setting.define("CONCLAVE_TEST_X", Parsers.TEXT).flag("endpoints", "HOST"))
      .hasMessageContaining("got 'endpoints'");
  }

  @Test
  void aCatalogueListsItsSettingFieldsInOrderAndIsDocumentedInTheReadmeUnlessItSaysOtherwise() {
    SettingCatalogue catalogue = new Declared();
    assertThat(catalogue.settings()).containsExactly(Declared.FIRST, Declared.SECOND);
    assertThat(catalogue.documentedIn()).isEqualTo("README.md");
  }

  /** A catalogue: its public static final settings count, nothing else does. */
  public static final class Declared implements SettingCatalogue {
    public static final Setting<Integer> FIRST = Setting.define("CONCLAVE_TEST_FIRST", Parsers.POSITIVE).describedAs("1").byDefault("1");
    static final Setting<Integer> HIDDEN = Setting.define("CONCLAVE_TEST_HIDDEN", Parsers.POSITIVE).describedAs("h").byDefault("1");
    public static final String NOT_A_SETTING = "CONCLAVE_TEST_NOT";
    public static final Setting<Boolean> SECOND = Setting.define("CONCLAVE_TEST_SECOND", Parsers.BOOLEAN).describedAs("2").byDefault("on");
  }
}
