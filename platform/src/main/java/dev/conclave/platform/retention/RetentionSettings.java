package dev.conclave.platform.retention;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** How every retention worker runs (the windows are each module's own settings). */
public record RetentionSettings(int batchSize, Duration interval, Optional<Path> archiveDir) {

  public static RetentionSettings from(ConclaveConfig config) {
    return new RetentionSettings(config.get(NodeSettings.RETENTION_BATCH), config.get(NodeSettings.RETENTION_INTERVAL),
      config.find(NodeSettings.RETENTION_ARCHIVE_DIR));
  }
}
