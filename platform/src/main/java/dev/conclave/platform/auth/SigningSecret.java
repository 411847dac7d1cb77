package dev.conclave.platform.auth;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.ConfigException;
import dev.conclave.platform.config.ConfigKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The key tokens are signed with: {@code CONCLAVE_AUTH_SECRET} when set, otherwise a random secret
 * generated into {@code $CONCLAVE_DATA_DIR/auth.secret} on first start and reused afterwards.
 */
public final class SigningSecret {

  private static final Logger LOG = LoggerFactory.getLogger(SigningSecret.class);
  public static final String FILE_NAME = "auth.secret";

  private SigningSecret() {
  }

  public static String resolve(ConclaveConfig config) {
    if (config.authSecret().isPresent()) {
      return config.authSecret().get();
    }
    Path file = config.dataDir().resolve(FILE_NAME);
    try {
      if (Files.exists(file)) {
        String secret = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (secret.length() < ConclaveConfig.MIN_SECRET_LENGTH) {
          throw new ConfigException(ConfigKey.AUTH_SECRET.env(), "unset, and " + file + " holds fewer than "
            + ConclaveConfig.MIN_SECRET_LENGTH + " characters; delete it to generate a new one (all tokens become invalid)");
        }
        return secret;
      }
      byte[] random = new byte[48];
      new SecureRandom().nextBytes(random);
      String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
      PrivateFiles.write(file, secret + "\n");
      LOG.info("auth: generated a token signing secret file={}", file);
      return secret;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the signing secret " + file + ": " + e.getMessage(), e);
    }
  }
}
