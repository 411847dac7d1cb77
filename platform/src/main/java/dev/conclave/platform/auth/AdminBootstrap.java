package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * First start of a data dir: make sure the bootstrap admin principal exists and write a token for it
 * to {@code admin.token} (mode 0600). Later starts leave an existing file alone, unless the database
 * has no record of its token (a new database under an old data dir): a token is accepted only if its
 * id was issued, so that file could no longer log anyone in, and a new one is written.
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
      Optional<UUID> id = tokenId(tokenFile);
      if (id.isEmpty()) {
        return Future.succeededFuture(false);
      }
      return tokens.find(id.get()).compose(found -> {
        if (found.isPresent()) {
          return Future.succeededFuture(false);
        }
        LOG.warn("auth: the admin token in {} was not issued by this database; writing a new one", tokenFile);
        return write(tokenFile, principals, tokens);
      });
    }
    return write(tokenFile, principals, tokens);
  }

  /** The id of the token in {@code tokenFile}, read without checking it (empty when it cannot be read). */
  private static Optional<UUID> tokenId(Path tokenFile) {
    try {
      String[] parts = Files.readString(tokenFile).trim().split("\\.");
      JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
      return Optional.of(UUID.fromString(claims.getString("jti")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The bootstrap admin principal without a token, for nodes whose data dir does not last (a pod's
   * emptyDir): a token written there would be a new one at every start, readable only through the
   * pod. Its token is issued once with {@code conclave-node token --admin} and kept in a Secret.
   */
  public static Future<Principal> ensureAdminPrincipal(PrincipalStore principals) {
    return principals.create(ADMIN_PRINCIPAL_ID, PrincipalType.CLIENT, "admin", PrincipalStatus.APPROVED,
        List.of(Roles.OWNER, Roles.ADMIN), Optional.empty());
  }

  private static Future<Boolean> write(Path tokenFile, PrincipalStore principals, TokenService tokens) {
    return ensureAdminPrincipal(principals)
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
