package dev.conclave.packs;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

import java.time.Duration;
import java.util.List;

/**
 * The pack host's own settings: each declared once below as a {@link Setting} (listed by
 * {@link Catalogue}, documented in the README's configuration table and docs/packs.md),
 * and their values for one node.
 */
public record PackSettings(Duration pingInterval) {

  public static final Setting<Duration> PACK_PING = Setting.define("CONCLAVE_PACK_PING_SECONDS", Parsers.SECONDS)
    .readBy(Reader.PACK_HOST).describedAs("HTTP/2 ping interval on pack connections; a ping still unanswered two intervals later drops the pack")
    .byDefault("20");

  public static final Setting<Duration> TOOL_CALL_RETENTION = Setting.define("CONCLAVE_TOOL_CALL_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.PACK_HOST).describedAs("records of pack tool calls are deleted this long after the call started")
    .byDefault("30");

  public static PackSettings from(ConclaveConfig config) {
    return new PackSettings(config.get(PACK_PING));
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(PackSettings.class);
    }
  }
}
