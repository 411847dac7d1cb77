package dev.conclave.platform.auth;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.UUID;

/**
 * Carries revocations and principal changes to every node: announcements on the event bus (a token,
 * a whole principal, a principal's changed row) reach the revocation list, the live credentials and
 * the principal directory at once; a periodic re-read of PostgreSQL catches anything an announcement
 * missed (or a change made in the database directly), for tokens, for the principals this node holds
 * in memory and for the principals of open streams.
 */
public final class RevocationFeed implements TokenService.Announcer {

  private static final Logger LOG = LoggerFactory.getLogger(RevocationFeed.class);
  static final Duration REFRESH = Duration.ofSeconds(10);
  private static final NamedStatement NO_LONGER_APPROVED = SqlFile.of(RevocationFeed.class, "principals.sql").get("NoLongerApproved");

  private final Vertx vertx;
  private final Pool pool;
  private final RevocationList revocations;
  private final LiveCredentials live;
  private final PrincipalDirectory directory;
  private final IssuedTokens issued;

  public RevocationFeed(Vertx vertx, Pool pool, RevocationList revocations, LiveCredentials live, PrincipalDirectory directory,
                        IssuedTokens issued) {
    this.vertx = vertx;
    this.pool = pool;
    this.revocations = revocations;
    this.live = live;
    this.directory = directory;
    this.issued = issued;
  }

  /** Loads the revocation list, then listens and re-reads periodically. */
  public Future<Void> start() {
    vertx.eventBus().<String>consumer(Addresses.AUTH_TOKEN_REVOKED, msg -> {
      UUID id = UUID.fromString(msg.body());
      revocations.add(id);
      live.tokenRevoked(id);
    });
    vertx.eventBus().<String>consumer(Addresses.AUTH_PRINCIPAL_REVOKED, msg -> {
      UUID id = UUID.fromString(msg.body());
      directory.forget(id);
      live.principalRevoked(id);
    });
    vertx.eventBus().<String>consumer(Addresses.AUTH_PRINCIPAL_CHANGED, msg -> directory.forget(UUID.fromString(msg.body())));
    vertx.setPeriodic(REFRESH.toMillis(), id -> refresh()
      .onFailure(err -> LOG.warn("auth: revocation refresh failed error={}", err.getMessage())));
    return revocations.refresh().mapEmpty();
  }

  @Override
  public void token(UUID tokenId) {
    vertx.eventBus().publish(Addresses.AUTH_TOKEN_REVOKED, tokenId.toString());
  }

  @Override
  public void principal(UUID principalId) {
    vertx.eventBus().publish(Addresses.AUTH_PRINCIPAL_REVOKED, principalId.toString());
  }

  @Override
  public void principalChanged(UUID principalId) {
    vertx.eventBus().publish(Addresses.AUTH_PRINCIPAL_CHANGED, principalId.toString());
  }

  private Future<Void> refresh() {
    Future<Void> tokens = revocations.refresh().map(added -> {
      added.forEach(live::tokenRevoked);
      return null;
    });
    issued.sweep(java.time.Instant.now());
    Future<Void> known = directory.refresh();
    Set<UUID> watched = live.watchedPrincipals();
    if (watched.isEmpty()) {
      return Future.join(tokens, known).mapEmpty();
    }
    Future<Void> principals = NO_LONGER_APPROVED.with("ids", new ArrayList<>(watched).toArray(new UUID[0])).execute(pool)
      .map(rows -> {
        rows.forEach(r -> live.principalRevoked(r.getUUID("id")));
        return null;
      });
    return Future.join(tokens, known, principals).mapEmpty();
  }
}
