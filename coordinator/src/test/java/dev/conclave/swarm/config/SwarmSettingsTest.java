package dev.conclave.swarm.config;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The coordinator's settings: defaults and parsing (AllSettingsTest keeps the README's table of them true). */
class SwarmSettingsTest {

  private static SwarmSettings settings(Map<String, String> env) {
    Map<String, String> vars = new java.util.HashMap<>(env);
    vars.put("CONCLAVE_DATA_DIR", "/var/conclave");
    return SwarmSettings.from(ConclaveConfig.from(vars));
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    SwarmSettings s = settings(Map.of());

    assertThat(s.defaultMaxRetries()).isEqualTo(2);
    assertThat(s.fileTransport()).isTrue();
    assertThat(s.fileDir()).isEqualTo(Path.of("/var/conclave/swarm/protocol"));
    assertThat(s.hmacWindow()).isEqualTo(Duration.ofMinutes(5));
    assertThat(s.rateLimits()).isTrue();
    assertThat(s.trustForwardedFor()).isFalse();
    assertThat(s.batchMax()).isEqualTo(64);
    assertThat(s.messageRetention()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void valuesAreReadAndCheckedNamingTheVariable() {
    SwarmSettings s = settings(Map.of("CONCLAVE_SWARM_RATE_LIMITS", "off", "CONCLAVE_SWARM_FILE_DIR", "/srv/shared",
      "CONCLAVE_SWARM_MAX_RETRIES", "5"));
    assertThat(s.rateLimits()).isFalse();
    assertThat(s.fileDir()).isEqualTo(Path.of("/srv/shared"));
    assertThat(s.defaultMaxRetries()).isEqualTo(5);

    assertThatThrownBy(() -> settings(Map.of("CONCLAVE_SWARM_BATCH_MAX", "0")))
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_SWARM_BATCH_MAX:");
    assertThatThrownBy(() -> settings(Map.of("CONCLAVE_SWARM_FILE_TRANSPORT", "maybe")))
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_SWARM_FILE_TRANSPORT:");
    assertThatThrownBy(() -> settings(Map.of("CONCLAVE_SWARM_JOB_INTERVAL_MS", "soon")))
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_SWARM_JOB_INTERVAL_MS:");
  }
}
