package dev.conclave.platform.auth;

import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.files.PrivateFiles;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * First start of a data dir: make sure the bootstrap admin principal exists and write a token for it
 * to {@code admin.token} (mode 0600). Later starts leave an existing file alone, unless the database
 * has no record of its token (a new database under an old data dir): a token is accepted only if its
 * id was issued, so that file could no longer log anyone in, and a new one is written.
 *
 * <p>With {@code CONCLAVE_ADMIN_TOKEN_FILE} (a Kubernetes Secret) the operator made the credential:
 * every start registers it, and nothing more when it already is ({@link #ensureTokenFromFile}).
 */
public final class AdminBootstrap {

  private static final Logger LOG = LoggerFactory.getLogger(AdminBootstrap.class);

  /** The one well-known principal every fresh installation gets; idempotent across nodes. */
  public static final UUID ADMIN_PRINCIPAL_ID = UUID.fromString("00000000-0000-4000-8000-00000000ad01");
  public static final Duration ADMIN_TOKEN_TTL = Duration.ofDays(365);

  private static final SqlFile FILE_SQL = SqlFile.of(AdminBootstrap.class, "admin_token_file.sql");

  /** What a start with {@code CONCLAVE_ADMIN_TOKEN_FILE} did: registered the credential or found it, and revoked the ones it replaced. */
  public record FromFile(boolean registered, List<UUID> revoked) {
  }

  private AdminBootstrap() {
  }

  /**
   * Makes the credential in {@code file} the bootstrap admin's: registered once, under a lock that the
   * nodes starting together take in turn, so a second node or a restart finds it and adds nothing; a
   * new value revokes the credentials from the file it replaces, in the same transaction, so a node
   * still holding the old value cannot bring it back. A value that was revoked fails the start.
   */
  public static Future<FromFile> ensureTokenFromFile(AdminTokenFile file, Pool pool, PrincipalStore principals, TokenService tokens,
                                                     Clock clock) {
    UUID id = file.tokenId();
    return ensureAdminPrincipal(principals).compose(admin -> pool.withTransaction(conn -> FILE_SQL.get("Lock").execute(conn)
        .compose(v -> FILE_SQL.get("Find").with("id", id).execute(conn))
        .compose(found -> {
          if (found.size() > 0) {
            Row row = found.iterator().next();
            if (row.getBoolean("revoked")) {
              return Future.failedFuture(new ConfigException(NodeSettings.ADMIN_TOKEN_FILE.name(), file.file() + " holds a credential that "
                + "was revoked (replaced by a newer one or revoked by an admin): put a new value in it"));
            }
            return Future.succeededFuture(new Registered(false, row.getOffsetDateTime("expires_at").toInstant()));
          }
          return FILE_SQL.get("Register").with("id", id).with("principal_id", admin.id())
            .with("expires_at", clock.instant().plus(TokenService.MAX_TTL).atOffset(ZoneOffset.UTC)).execute(conn)
            .map(rows -> new Registered(true, rows.iterator().next().getOffsetDateTime("expires_at").toInstant()));
        })
        .compose(registered -> FILE_SQL.get("RevokeReplaced").with("id", id).with("reason", "replaced in " + NodeSettings.ADMIN_TOKEN_FILE.name())
          .execute(conn).map(rows -> {
            List<UUID> revoked = new ArrayList<>();
            rows.forEach(r -> revoked.add(r.getUUID("id")));
            tokens.remember(new TokenStore.Issued(id, admin.id(), TokenPurpose.API, registered.expiresAt()));
            return new FromFile(registered.registered(), revoked);
          }))))
      // every node ends the replaced credentials' open streams and refuses them from now on, as for any revocation
      .compose(outcome -> Future.all(outcome.revoked().stream().map(r -> tokens.revoke(r, "replaced")).toList()).map(outcome));
  }

  private record Registered(boolean registered, java.time.Instant expiresAt) {
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
