package dev.conclave.platform.auth;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.settings.ConfigException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import java.util.UUID;

/**
 * The bootstrap admin's credential as the operator made it, read from the file
 * {@code CONCLAVE_ADMIN_TOKEN_FILE} names (a mounted Kubernetes Secret): a random string of at least
 * {@value #MIN_LENGTH} printable characters, sent as a bearer token like any other. It is not a JWT
 * (it holds no {@code '.'}), so nothing has to sign it before the first node starts, and it is never
 * stored: its record in {@code auth.tokens} has an id derived from it by SHA-256, so presenting it finds
 * its record as a JWT's {@code jti} does, while the database, the logs and token listings hold only a
 * one-way digest of it.
 */
public final class AdminTokenFile {

  /** The shortest value accepted; {@code openssl rand -base64 32} makes 44 characters. */
  public static final int MIN_LENGTH = 32;
  private static final String HOW = "openssl rand -base64 32";
  private static final byte[] DOMAIN = "conclave admin token file\n".getBytes(StandardCharsets.US_ASCII);

  private final Path file;
  private final UUID tokenId;

  private AdminTokenFile(Path file, UUID tokenId) {
    this.file = file;
    this.tokenId = tokenId;
  }

  /** The file the configuration names, read and checked; a file that cannot serve fails here, with one line. */
  public static Optional<AdminTokenFile> resolve(ConclaveConfig config) {
    return config.find(NodeSettings.ADMIN_TOKEN_FILE).map(AdminTokenFile::read);
  }

  static AdminTokenFile read(Path file) {
    String setting = NodeSettings.ADMIN_TOKEN_FILE.name();
    if (!Files.exists(file)) {
      throw new ConfigException(setting, file + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw new ConfigException(setting, file + " cannot be read: it is a directory");
    }
    String value;
    try {
      // a Secret made with --from-file may end in a newline
      value = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new ConfigException(setting, file + " cannot be read: " + e);
    }
    if (value.isEmpty()) {
      throw new ConfigException(setting, file + " is empty");
    }
    if (!wellFormed(value)) {
      throw new ConfigException(setting, file + " holds a '.' or a character that is not printable ASCII; make one with: " + HOW);
    }
    if (value.length() < MIN_LENGTH) {
      throw new ConfigException(setting, file + " holds " + value.length() + " characters; the admin's credential needs at least "
        + MIN_LENGTH + " (make one with: " + HOW + ")");
    }
    return new AdminTokenFile(file, tokenId(value));
  }

  /** Whether a presented bearer token is of this kind rather than a JWT (which always holds two dots). */
  static boolean isCandidate(String bearer) {
    return bearer.length() >= MIN_LENGTH && wellFormed(bearer);
  }

  /** The id of the record a value of this kind has: the first 128 bits of its SHA-256, marked as a version 8 UUID. */
  static UUID tokenId(String value) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(DOMAIN);
      byte[] d = sha.digest(value.getBytes(StandardCharsets.US_ASCII));
      d[6] = (byte) ((d[6] & 0x0f) | 0x80);
      d[8] = (byte) ((d[8] & 0x3f) | 0x80);
      ByteBuffer b = ByteBuffer.wrap(d);
      return new UUID(b.getLong(), b.getLong());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static boolean wellFormed(String value) {
    return value.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '.');
  }

  public Path file() {
    return file;
  }

  /** The id of this credential's record in {@code auth.tokens}. */
  public UUID tokenId() {
    return tokenId;
  }
}
