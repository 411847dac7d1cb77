package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Issues and verifies bearer tokens: HS256 JWTs (vertx-auth-jwt) whose {@code jti} is recorded in
 * PostgreSQL so that any token can be revoked by id.
 */
public final class TokenService {

  public static final String ISSUER = "conclave";
  public static final String AUDIENCE = "conclave";
  public static final Duration DEFAULT_TTL = Duration.ofDays(30);
  public static final Duration MAX_TTL = Duration.ofDays(3650);

  /** A freshly issued token. */
  public record IssuedToken(String token, UUID tokenId, UUID principalId, Instant expiresAt) {
  }

  private final JWTAuth jwt;
  private final TokenStore store;
  private final RevocationList revocations;
  private final Clock clock;
  private final Consumer<UUID> revocationAnnouncer;

  /**
   * @param revocationAnnouncer tells other nodes about a revocation made here
   */
  public TokenService(Vertx vertx, String secret, TokenStore store, RevocationList revocations, Clock clock,
                      Consumer<UUID> revocationAnnouncer) {
    // Expiry is checked below against our clock, so the library is told to skip its own check.
    JWTOptions options = new JWTOptions().setIssuer(ISSUER).setAudience(List.of(AUDIENCE)).setIgnoreExpiration(true).setLeeway(0);
    this.jwt = JWTAuth.create(vertx, new JWTAuthOptions()
      .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(secret))
      .setJWTOptions(options));
    this.store = store;
    this.revocations = revocations;
    this.clock = clock;
    this.revocationAnnouncer = revocationAnnouncer;
  }

  public Future<IssuedToken> issue(Principal principal, Duration ttl, String purpose) {
    if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0) {
      return Future.failedFuture(AuthErrors.invalidTtl(ttl.getSeconds(), MAX_TTL.getSeconds()));
    }
    Instant now = clock.instant();
    Instant expires = now.plus(ttl);
    UUID tokenId = UUID.randomUUID();
    JsonObject claims = new JsonObject()
      .put("sub", principal.id().toString())
      .put("jti", tokenId.toString())
      .put("ptype", principal.type().wire())
      .put("roles", new JsonArray(List.copyOf(principal.roles())))
      .put("iat", now.getEpochSecond())
      .put("exp", expires.getEpochSecond());
    String token = jwt.generateToken(claims, new JWTOptions().setAlgorithm("HS256").setIssuer(ISSUER)
      .setAudience(List.of(AUDIENCE)).setNoTimestamp(true));
    Instant expiresAt = Instant.ofEpochSecond(expires.getEpochSecond());
    return store.record(tokenId, principal.id(), purpose, now, expiresAt)
      .map(v -> new IssuedToken(token, tokenId, principal.id(), expiresAt));
  }

  /** Verifies the value of an {@code authorization} header. */
  public Caller verifyHeader(String authorization) {
    return verify(Bearer.token(authorization));
  }

  /**
   * Verifies a token: signature, issuer, audience, expiry and revocation. Throws the precise
   * {@link AuthErrors} failure otherwise.
   */
  public Caller verify(String token) {
    // HS256 verification in vertx-auth-jwt completes within the call; a pending future would mean
    // the library changed, and is treated as a rejection rather than waited on.
    Future<User> result = jwt.authenticate(new TokenCredentials(token));
    if (!result.succeeded()) {
      throw AuthErrors.invalidToken();
    }
    // the decoded payload; principal() holds only a subset of it
    JsonObject claims = result.result().attributes().getJsonObject("accessToken", new JsonObject());
    Caller caller;
    try {
      Set<String> roles = new HashSet<>();
      JsonArray roleArray = claims.getJsonArray("roles", new JsonArray());
      roleArray.forEach(r -> roles.add(String.valueOf(r)));
      caller = new Caller(
        UUID.fromString(claims.getString("sub")),
        PrincipalType.of(claims.getString("ptype")).orElseThrow(),
        roles,
        Optional.of(UUID.fromString(claims.getString("jti"))),
        Instant.ofEpochSecond(claims.getLong("exp")));
    } catch (RuntimeException e) {
      throw AuthErrors.invalidToken();
    }
    if (!clock.instant().isBefore(caller.expiresAt())) {
      throw AuthErrors.expired();
    }
    if (revocations.contains(caller.tokenId().orElseThrow())) {
      throw AuthErrors.revoked();
    }
    return caller;
  }

  /** Revokes a token by id, here and (through the announcer) on every node. */
  public Future<Boolean> revoke(UUID tokenId, String reason) {
    return store.revoke(tokenId, reason).map(changed -> {
      revocations.add(tokenId);
      revocationAnnouncer.accept(tokenId);
      return changed;
    });
  }

  /** Revokes every token of a principal, for example when the principal is deleted. */
  public Future<List<UUID>> revokeAllOf(UUID principalId, String reason) {
    return store.revokeAllOf(principalId, reason).map(ids -> {
      revocations.addAll(ids);
      ids.forEach(revocationAnnouncer);
      return ids;
    });
  }

  public RevocationList revocations() {
    return revocations;
  }
}
