package dev.conclave.swarm.config;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.ConfigException;
import dev.conclave.platform.config.Values;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * The coordinator's settings, read once from {@code CONCLAVE_SWARM_*} variables. Every key is listed in
 * {@link Key} with its default, and in docs/swarm.md. A wrong value stops start-up naming the variable.
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

  /** Every variable the coordinator reads. */
  public enum Key {
    MAX_RETRIES("CONCLAVE_SWARM_MAX_RETRIES", "2", "retries a task gets when it is created without maxRetries"),
    FILE_TRANSPORT("CONCLAVE_SWARM_FILE_TRANSPORT", "true", "answer request files in the file transport directory"),
    FILE_DIR("CONCLAVE_SWARM_FILE_DIR", "$CONCLAVE_DATA_DIR/swarm/protocol", "file transport directory (requests/, responses/, processing/)"),
    FILE_POLL_MS("CONCLAVE_SWARM_FILE_POLL_MS", "500", "how often the file transport looks for request files"),
    FILE_MAX_BYTES("CONCLAVE_SWARM_FILE_MAX_BYTES", "1048576", "largest request file answered; larger ones get an error response"),
    HMAC_WINDOW_SECONDS("CONCLAVE_SWARM_HMAC_WINDOW_SECONDS", "300", "how far a signed timestamp may be from the coordinator's clock"),
    RATE_LIMITS("CONCLAVE_SWARM_RATE_LIMITS", "true", "enforce the protocol's per-minute rate limits"),
    TRUST_FORWARDED_FOR("CONCLAVE_SWARM_TRUST_FORWARDED_FOR", "false", "take REGISTER's client IP from the last X-Forwarded-For entry (only behind a proxy you run)"),
    JOB_INTERVAL_MS("CONCLAVE_SWARM_JOB_INTERVAL_MS", "1000", "how often background jobs run on each node"),
    EVENT_POLL_MS("CONCLAVE_SWARM_EVENT_POLL_MS", "250", "how often a node looks for events to publish that it was not told about"),
    BATCH_MAX("CONCLAVE_SWARM_BATCH_MAX", "64", "most protocol requests sent to PostgreSQL in one statement"),
    BATCH_IN_FLIGHT("CONCLAVE_SWARM_BATCH_IN_FLIGHT", "1", "statements each event loop keeps running at once; requests arriving meanwhile form the next batch"),
    QUEUE_MAX("CONCLAVE_SWARM_QUEUE_MAX", "2048", "requests each event loop may hold waiting before new ones get 503 overloaded"),
    MESSAGE_RETENTION_HOURS("CONCLAVE_SWARM_MESSAGE_RETENTION_HOURS", "168", "messages without an expiry are deleted after this long");

    private final String env;
    private final String documentedDefault;
    private final String meaning;

    Key(String env, String documentedDefault, String meaning) {
      this.env = env;
      this.documentedDefault = documentedDefault;
      this.meaning = meaning;
    }

    public String env() {
      return env;
    }

    public String documentedDefault() {
      return documentedDefault;
    }

    public String meaning() {
      return meaning;
    }
  }

  public static SwarmSettings from(ConclaveConfig config) {
    Reader r = new Reader(config);
    return new SwarmSettings(
      r.bounded(Key.MAX_RETRIES, 0, 100),
      r.bool(Key.FILE_TRANSPORT),
      config.raw(Key.FILE_DIR.env()).map(Path::of).orElse(config.dataDir().resolve("swarm").resolve("protocol"))
        .toAbsolutePath().normalize(),
      Duration.ofMillis(r.bounded(Key.FILE_POLL_MS, 10, 3_600_000)),
      r.bounded(Key.FILE_MAX_BYTES, 1024, 64 * 1024 * 1024),
      Duration.ofSeconds(r.bounded(Key.HMAC_WINDOW_SECONDS, 1, 86_400)),
      r.bool(Key.RATE_LIMITS),
      r.bool(Key.TRUST_FORWARDED_FOR),
      Duration.ofMillis(r.bounded(Key.JOB_INTERVAL_MS, 10, 3_600_000)),
      Duration.ofMillis(r.bounded(Key.EVENT_POLL_MS, 10, 3_600_000)),
      r.bounded(Key.BATCH_MAX, 1, 1000),
      r.bounded(Key.BATCH_IN_FLIGHT, 1, 64),
      r.bounded(Key.QUEUE_MAX, 1, 1_000_000),
      Duration.ofHours(r.bounded(Key.MESSAGE_RETENTION_HOURS, 1, 24 * 3650)));
  }

  private record Reader(ConclaveConfig config) {

    int bounded(Key key, int min, int max) {
      String text = config.raw(key.env()).orElse(key.documentedDefault());
      int value = Values.integer(key.env(), text);
      if (value < min || value > max) {
        throw new ConfigException(key.env(), "must be between " + min + " and " + max + ", got " + value);
      }
      return value;
    }

    boolean bool(Key key) {
      String text = config.raw(key.env()).orElse(key.documentedDefault()).toLowerCase(Locale.ROOT);
      return switch (text) {
        case "true", "on", "yes", "1" -> true;
        case "false", "off", "no", "0" -> false;
        default -> throw new ConfigException(key.env(), "must be true or false, got '" + text + "'");
      };
    }
  }
}
