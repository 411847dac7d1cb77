package dev.conclave.platform.secrets;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.files.PrivateFiles;
import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Values;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The key secrets are encrypted with: {@code CONCLAVE_SECRETS_KEY} (base64 of 32 bytes) when set,
 * which a cluster requires so that every node reads what any node stored; otherwise a random key
 * generated into {@code $CONCLAVE_DATA_DIR/secrets.key} (mode 0600) on first start and reused
 * afterwards. {@link #verify} proves at start that the key is the one the database's secrets were
 * written with.
 */
public final class SecretsKey {

  private static final Logger LOG = LoggerFactory.getLogger(SecretsKey.class);
  public static final String FILE_NAME = "secrets.key";
  static final byte[] CHECK_PLAINTEXT = "conclave secrets key check".getBytes(StandardCharsets.UTF_8);
  static final byte[] CHECK_ASSOCIATED_DATA = "conclave/secrets-key-check/v1".getBytes(StandardCharsets.UTF_8);

  /**
   * A key and where it came from: the variable, a file, or a file generated just now. Messages say
   * which; none shows the key.
   */
  public record Resolved(byte[] key, Optional<Path> file, boolean generated) {

    String wrongKey() {
      if (file.isEmpty()) {
        return "wrong key: this database's secrets were encrypted with a different key; start every node with the key the first node used";
      }
      if (generated) {
        return "unset, and this data dir had no " + FILE_NAME + ", but this database's secrets were encrypted with a key; "
          + "set CONCLAVE_SECRETS_KEY to it, or restore the original " + FILE_NAME + " over the one just generated at " + file.get();
      }
      return "unset, and the key in " + file.get() + " is the wrong key: this database's secrets were encrypted with a different key; "
        + "set CONCLAVE_SECRETS_KEY to that key, or restore the " + FILE_NAME + " this data dir had";
    }
  }

  private SecretsKey() {
  }

  public static Resolved resolve(ConclaveConfig config) {
    Optional<byte[]> configured = config.find(NodeSettings.SECRETS_KEY);
    if (configured.isPresent()) {
      return new Resolved(configured.get(), Optional.empty(), false);
    }
    if (config.clustered()) {
      throw new ConfigException(NodeSettings.SECRETS_KEY.name(), "must be set when the node runs clustered, so that every node "
        + "decrypts the secrets any node stored (generate one with: openssl rand -base64 32)");
    }
    Path file = config.dataDir().resolve(FILE_NAME);
    try {
      if (Files.exists(file)) {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
          return new Resolved(Values.base64Key(NodeSettings.SECRETS_KEY.name(), text, SecretBox.KEY_BYTES), Optional.of(file), false);
        } catch (ConfigException e) {
          throw new ConfigException(NodeSettings.SECRETS_KEY.name(), "unset, and " + file + " does not hold the base64 of "
            + SecretBox.KEY_BYTES + " bytes; restore it from a backup (without it, stored secrets cannot be read)");
        }
      }
      byte[] key = new byte[SecretBox.KEY_BYTES];
      new SecureRandom().nextBytes(key);
      PrivateFiles.write(file, Base64.getEncoder().encodeToString(key) + "\n");
      LOG.info("secrets: generated a secrets key file={}", file);
      return new Resolved(key, Optional.of(file), true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the secrets key " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Stores the check value if this is the first node, then decrypts the stored one; fails with a
   * {@link ConfigException} naming {@code CONCLAVE_SECRETS_KEY} when the key is not the database's.
   */
  public static Future<Void> verify(SecretStore store, SecretBox box, Resolved key) {
    return store.keyCheck(box.seal(CHECK_PLAINTEXT, CHECK_ASSOCIATED_DATA)).map(stored -> {
      Optional<byte[]> opened = box.open(stored, CHECK_ASSOCIATED_DATA);
      if (opened.isEmpty() || !Arrays.equals(opened.get(), CHECK_PLAINTEXT)) {
        throw new ConfigException(NodeSettings.SECRETS_KEY.name(), key.wrongKey());
      }
      LOG.info("secrets: key checked against the database source={}", key.file().map(Path::toString).orElse(NodeSettings.SECRETS_KEY.name()));
      return null;
    });
  }
}
