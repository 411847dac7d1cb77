package dev.conclave.swarm.config;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The coordinator's settings: each declared once below as a {@link Setting} (listed by
 * {@link Catalogue}, documented in the README's configuration table), and their values for
 * one node. A wrong value stops start-up naming the variable.
 */
public record SwarmSettings(
  int defaultMaxRetries,
  boolean fileTransport,
  Path fileDir,
  Duration filePoll,
  int fileMaxBytes,
  Duration hmacWindow,
  boolean rateLimits,
  boolean trustForwardedFor,
  Duration jobInterval,
  Duration eventPoll,
  int batchMax,
  int batchInFlight,
  int queueMax,
  Duration messageRetention) {

  public static final Setting<Integer> MAX_RETRIES = Setting.define("CONCLAVE_SWARM_MAX_RETRIES", Parsers.between(0, 100))
    .readBy(Reader.COORDINATOR).describedAs("retries a task gets when it is created without maxRetries")
    .byDefault("2");
  public static final Setting<Boolean> FILE_TRANSPORT = Setting.define("CONCLAVE_SWARM_FILE_TRANSPORT", Parsers.BOOLEAN)
    .readBy(Reader.COORDINATOR).describedAs("answer request files in the file transport directory")
    .byDefault("true");
  public static final Setting<Path> FILE_DIR = Setting.define("CONCLAVE_SWARM_FILE_DIR", Parsers.PATH)
    .readBy(Reader.COORDINATOR).describedAs("file transport directory (requests/, responses/, processing/)")
    .noDefault("`$CONCLAVE_DATA_DIR/swarm/protocol`");
  public static final Setting<Duration> FILE_POLL_MS = Setting.define("CONCLAVE_SWARM_FILE_POLL_MS", millis(10, 3_600_000))
    .readBy(Reader.COORDINATOR).describedAs("how often the file transport looks for request files")
    .byDefault("500");
  public static final Setting<Integer> FILE_MAX_BYTES = Setting.define("CONCLAVE_SWARM_FILE_MAX_BYTES", Parsers.between(1024, 67_108_864))
    .readBy(Reader.COORDINATOR).describedAs("largest request file answered; larger ones get an error response")
    .byDefault("1048576");
  public static final Setting<Duration> HMAC_WINDOW_SECONDS = Setting.define("CONCLAVE_SWARM_HMAC_WINDOW_SECONDS", (v, text) -> Duration.ofSeconds(Parsers.between(1, 86_400).parse(v, text)))
    .readBy(Reader.COORDINATOR).describedAs("how far a signed timestamp may be from the coordinator's clock")
    .byDefault("300");
  public static final Setting<Boolean> RATE_LIMITS = Setting.define("CONCLAVE_SWARM_RATE_LIMITS", Parsers.BOOLEAN)
    .readBy(Reader.COORDINATOR).describedAs("enforce the protocol's per-minute rate limits")
    .byDefault("true");
  public static final Setting<Boolean> TRUST_FORWARDED_FOR = Setting.define("CONCLAVE_SWARM_TRUST_FORWARDED_FOR", Parsers.BOOLEAN)
    .readBy(Reader.COORDINATOR).describedAs("take REGISTER's client IP from the last X-Forwarded-For entry (only behind a proxy you run)")
    .byDefault("false");
  public static final Setting<Duration> JOB_INTERVAL_MS = Setting.define("CONCLAVE_SWARM_JOB_INTERVAL_MS", millis(10, 3_600_000))
    .readBy(Reader.COORDINATOR).describedAs("how often background jobs run on each node")
    .byDefault("1000");
  public static final Setting<Duration> EVENT_POLL_MS = Setting.define("CONCLAVE_SWARM_EVENT_POLL_MS", millis(10, 3_600_000))
    .readBy(Reader.COORDINATOR).describedAs("how often a node looks for events to publish that it was not told about")
    .byDefault("250");
  public static final Setting<Integer> BATCH_MAX = Setting.define("CONCLAVE_SWARM_BATCH_MAX", Parsers.between(1, 1000))
    .readBy(Reader.COORDINATOR).describedAs("most protocol requests sent to PostgreSQL in one statement")
    .byDefault("64");
  public static final Setting<Integer> BATCH_IN_FLIGHT = Setting.define("CONCLAVE_SWARM_BATCH_IN_FLIGHT", Parsers.between(1, 64))
    .readBy(Reader.COORDINATOR).describedAs("statements each event loop keeps running at once; requests arriving meanwhile form the next batch")
    .byDefault("1");
  public static final Setting<Integer> QUEUE_MAX = Setting.define("CONCLAVE_SWARM_QUEUE_MAX", Parsers.between(1, 1_000_000))
    .readBy(Reader.COORDINATOR).describedAs("requests each event loop may hold waiting before new ones get 503 overloaded")
    .byDefault("2048");
  public static final Setting<Duration> MESSAGE_RETENTION_HOURS = Setting.define("CONCLAVE_SWARM_MESSAGE_RETENTION_HOURS", (v, text) -> Duration.ofHours(Parsers.between(1, 87_600).parse(v, text)))
    .readBy(Reader.COORDINATOR).describedAs("messages without an expiry are deleted after this long")
    .byDefault("168");

  public static final Setting<Duration> TASK_RETENTION = Setting.define("CONCLAVE_SWARM_TASK_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.COORDINATOR).describedAs("tasks in a terminal state (completed, failed, cancelled) are deleted with their history "
      + "this long after their last change; a task not finished never is")
    .byDefault("30");

  public static SwarmSettings from(ConclaveConfig config) {
    return new SwarmSettings(
      config.get(MAX_RETRIES),
      config.get(FILE_TRANSPORT),
      config.find(FILE_DIR).orElse(config.dataDir().resolve("swarm").resolve("protocol")).toAbsolutePath().normalize(),
      config.get(FILE_POLL_MS),
      config.get(FILE_MAX_BYTES),
      config.get(HMAC_WINDOW_SECONDS),
      config.get(RATE_LIMITS),
      config.get(TRUST_FORWARDED_FOR),
      config.get(JOB_INTERVAL_MS),
      config.get(EVENT_POLL_MS),
      config.get(BATCH_MAX),
      config.get(BATCH_IN_FLIGHT),
      config.get(QUEUE_MAX),
      config.get(MESSAGE_RETENTION_HOURS));
  }

  /** Milliseconds between {@code min} and {@code max}, as a duration. */
  private static Setting.Parser<Duration> millis(int min, int max) {
    return (variable, text) -> Duration.ofMillis(Parsers.between(min, max).parse(variable, text));
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(SwarmSettings.class);
    }
  }
}
