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
}
