package dev.conclave.platform.auth;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.files.PrivateFiles;
import dev.conclave.settings.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The keys tokens are signed and verified with. The first key signs new tokens; every key verifies
 * the tokens that name it ({@code kid} in the JWT header; tokens without one were signed by the key
 * {@value #LEGACY_KID}). Several keys at once make rotation possible: a new key signs from now on
 * while tokens of the old one stay valid until they expire or the old key is retired.
 *
 * <p>Source: {@code CONCLAVE_AUTH_SECRET} (one secret, or {@code kid:secret,kid:secret,…}, newest
 * first), else {@code $CONCLAVE_DATA_DIR/auth.secret} (one secret, or one {@code kid secret} per
 * line, newest first), generated on first start. {@code ./conclave token --rotate-key} and
 * {@code --retire-key} edit the file; running nodes re-read it.
 */
public final class SigningKeys {

  private static final Logger LOG = LoggerFactory.getLogger(SigningKeys.class);
  public static final String FILE_NAME = "auth.secret";
  public static final String LEGACY_KID = "default";
  private static final Pattern KID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /** One key. */
  public record Key(String kid, String secret) {
    @Override
    public String toString() {
      return "Key[" + kid + "]";
    }
  }

  private final List<Key> keys;

  public SigningKeys(List<Key> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("at least one signing key is needed");
    }
    this.keys = List.copyOf(keys);
  }

  /** The key new tokens are signed with. */
  public Key current() {
    return keys.get(0);
  }

  public Optional<Key> byKid(String kid) {
    return keys.stream().filter(k -> k.kid().equals(kid)).findFirst();
  }

  public List<Key> all() {
    return keys;
  }

  /**
   * The oldest key: what other secrets are derived from (the coordinator's per-agent HMAC secrets),
   * so that rotating the signing key does not change them.
   */
  public String rootSecret() {
    return keys.get(keys.size() - 1).secret();
  }

  /** The node's keys: from the environment, else the data dir's file (created on first use). */
  public static SigningKeys resolve(ConclaveConfig config) {
    if (config.authSecret().isPresent()) {
      return parse(config.authSecret().get(), ',', ':', NodeSettings.AUTH_SECRET.name());
    }
    Path file = file(config.dataDir());
    try {
      if (!Files.exists(file)) {
        PrivateFiles.write(file, random() + "\n");
        LOG.info("auth: generated a token signing secret file={}", file);
      }
      return read(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the signing secret " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Re-reads the data dir's key file every {@code every}, and hands changed keys to {@code use}, so
   * that a rotation made with the CLI reaches the running node. (Keys from the environment change
   * only with a restart.)
   */
  public static void watch(io.vertx.core.Vertx vertx, Path dataDir, java.time.Duration every, java.util.function.Consumer<SigningKeys> use) {
    Path file = file(dataDir);
    String[] last = new String[1];
    try {
      // what the node started with (this runs at start-up, off the event loops)
      last[0] = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the signing keys " + file, e);
    }
    vertx.setPeriodic(every.toMillis(), t -> vertx.fileSystem().readFile(file.toString()).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("auth: cannot read the signing keys file={} error={}", file, ar.cause().getMessage());
        return;
      }
      String text = ar.result().toString(StandardCharsets.UTF_8);
      if (text.equals(last[0])) {
        return;
      }
      try {
        SigningKeys keys = parse(text, '\n', ' ', NodeSettings.AUTH_SECRET.name() + " (unset; " + file + ")");
        use.accept(keys);
        last[0] = text;
      } catch (ConfigException e) {
        LOG.warn("auth: the signing keys file is not usable; keeping the current keys file={} error={}", file, e.getMessage());
      }
    }));
  }

  public static Path file(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  public static SigningKeys read(Path file) throws IOException {
    return parse(Files.readString(file, StandardCharsets.UTF_8), '\n', ' ', NodeSettings.AUTH_SECRET.name() + " (unset; " + file + ")");
  }

  /** Adds a new key in front of the file's keys; returns its kid. The old keys keep verifying. */
  public static String rotate(Path dataDir, Clock clock) throws IOException {
    Path file = file(dataDir);
    SigningKeys before = Files.exists(file) ? read(file) : new SigningKeys(List.of());
    String kid = "k" + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC).format(clock.instant());
    List<Key> keys = new ArrayList<>();
    keys.add(new Key(kid, random()));
    keys.addAll(before.keys);
    write(file, keys);
    return kid;
  }

  /** Removes a key that is not the current one: tokens it signed stop working at once. */
  public static void retire(Path dataDir, String kid) throws IOException {
    Path file = file(dataDir);
    SigningKeys before = read(file);
    if (before.current().kid().equals(kid)) {
      throw new IllegalArgumentException("key " + kid + " signs new tokens; rotate to a new key before retiring it");
    }
    if (before.byKid(kid).isEmpty()) {
      throw new IllegalArgumentException("no key " + kid + " (keys: " + before.keys.stream().map(Key::kid).toList() + ")");
    }
    write(file, before.keys.stream().filter(k -> !k.kid().equals(kid)).toList());
  }

  private static void write(Path file, List<Key> keys) throws IOException {
    StringBuilder out = new StringBuilder();
    keys.forEach(k -> out.append(k.kid()).append(' ').append(k.secret()).append('\n'));
    PrivateFiles.write(file, out.toString());
  }

  static SigningKeys parse(String text, char entrySeparator, char kidSeparator, String source) {
    List<Key> keys = new ArrayList<>();
    for (String raw : text.split(Pattern.quote(String.valueOf(entrySeparator)))) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int sep = entry.indexOf(kidSeparator);
      Key key = sep > 0 && KID.matcher(entry.substring(0, sep)).matches() && entry.length() - sep - 1 >= NodeSettings.MIN_SECRET_LENGTH
        ? new Key(entry.substring(0, sep), entry.substring(sep + 1).trim())
        : new Key(LEGACY_KID, entry);
      if (key.secret().length() < NodeSettings.MIN_SECRET_LENGTH) {
        throw new ConfigException(source, "a signing key has fewer than " + NodeSettings.MIN_SECRET_LENGTH + " characters");
      }
      if (keys.stream().anyMatch(k -> k.kid().equals(key.kid()))) {
        throw new ConfigException(source, "signing key id '" + key.kid() + "' appears twice");
      }
      keys.add(key);
    }
    if (keys.isEmpty()) {
      throw new ConfigException(source, "holds no signing key");
    }
    return new SigningKeys(keys);
  }

  private static String random() {
    byte[] random = new byte[48];
    new SecureRandom().nextBytes(random);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
  }
}
