package dev.conclave.platform.auth;

import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * First start of a data dir: make sure the bootstrap admin principal exists and write a token for it
 * to {@code admin.token} (mode 0600). Later starts leave an existing file alone.
 */
public final class AdminBootstrap {

  private static final Logger LOG = LoggerFactory.getLogger(AdminBootstrap.class);

  /** The one well-known principal every fresh installation gets; idempotent across nodes. */
  public static final UUID ADMIN_PRINCIPAL_ID = UUID.fromString("00000000-0000-4000-8000-00000000ad01");
  public static final Duration ADMIN_TOKEN_TTL = Duration.ofDays(365);

  private AdminBootstrap() {
  }

  /** Returns true when a new admin token was written. */
  public static Future<Boolean> ensureAdminToken(Path tokenFile, PrincipalStore principals, TokenService tokens) {
    if (Files.isRegularFile(tokenFile)) {
      return Future.succeededFuture(false);
    }
    return principals.create(ADMIN_PRINCIPAL_ID, PrincipalType.CLIENT, "admin", PrincipalStatus.APPROVED,
        List.of(Roles.OWNER, Roles.ADMIN), Optional.empty())
      .compose(admin -> tokens.issue(admin, ADMIN_TOKEN_TTL))
      .map(issued -> {
        try {
          PrivateFiles.write(tokenFile, issued.token() + "\n");
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write the admin token to " + tokenFile + ": " + e.getMessage(), e);
        }
        LOG.info("auth: first start, wrote an admin token file={} expires={}", tokenFile, issued.expiresAt());
        return true;
      });
  }
}
