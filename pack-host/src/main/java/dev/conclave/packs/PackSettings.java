package dev.conclave.packs;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.Values;

import java.time.Duration;

/** The pack host's own settings, each read from one environment variable (documented in docs/packs.md). */
public record PackSettings(Duration askUserTimeout, Duration pingInterval) {

  public static final String ASK_USER_TIMEOUT = "CONCLAVE_ASK_USER_TIMEOUT_SECONDS";
  public static final String PACK_PING = "CONCLAVE_PACK_PING_SECONDS";

  public static PackSettings from(ConclaveConfig config) {
    return new PackSettings(seconds(config, ASK_USER_TIMEOUT, 300), seconds(config, PACK_PING, 20));
  }

  private static Duration seconds(ConclaveConfig config, String variable, int fallback) {
    return Duration.ofSeconds(config.raw(variable).map(v -> Values.positive(variable, v)).orElse(fallback));
  }
}
