package dev.conclave.packs.settings;

import dev.conclave.packs.PackSettings;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pack host reads its settings through {@link PackSettings}: the defaults, and a bad value's error naming its variable. */
class PackSettingsTest {

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    PackSettings settings = PackSettings.from(ConclaveConfig.from(Map.of()));
    assertThat(settings.pingInterval()).isEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void aBadValueStopsStartUpNamingTheVariable() {
    assertThatThrownBy(() -> PackSettings.from(ConclaveConfig.from(Map.of("CONCLAVE_PACK_PING_SECONDS", "0"))))
      .isInstanceOf(ConfigException.class).hasMessage("CONCLAVE_PACK_PING_SECONDS: must be a positive whole number, got '0'");
  }
}
