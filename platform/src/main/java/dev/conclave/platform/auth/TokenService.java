package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

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

  private final Vertx vertx;
  private volatile Keyring keyring;
  private final TokenUse use = new TokenUse();
  private final TokenStore store;
  private final RevocationList revocations;
  private final Clock clock;
  private final LiveCredentials live;
  private final Announcer announcer;

  /** Tells every node (this one included) about a revocation made here. */
  public interface Announcer {
    void token(UUID tokenId);

    void principal(UUID principalId);

    /** For tools that run no node (the CLI): nobody to tell. */
    Announcer NONE = new Announcer() {
      @Override
      public void token(UUID tokenId) {
      }

      @Override
      public void principal(UUID principalId) {
      }
    };
  }

  public TokenService(Vertx vertx, SigningKeys keys, TokenStore store, RevocationList revocations, Clock clock,
                      LiveCredentials live, Announcer announcer) {
    this.vertx = vertx;
    this.keyring = new Keyring(vertx, keys, ISSUER, AUDIENCE);
    this.store = store;
    this.revocations = revocations;
    this.clock = clock;
    this.live = live;
    this.announcer = announcer;
  }

  /** Issues an API token: accepted by the gRPC services and the HTTP API. */
  public Future<IssuedToken> issue(Principal principal, Duration ttl) {
    return issue(principal, ttl, TokenPurpose.API, Optional.empty());
  }

  /** Issues a token for {@code purpose}, which must not need a scope (an MCP token does: {@link #issueMcp}). */
  public Future<IssuedToken> issue(Principal principal, Duration ttl, TokenPurpose purpose) {
    if (purpose == TokenPurpose.MCP) {
      return Future.failedFuture(AuthErrors.purposeNotIssuable(purpose.wire()));
    }
    return issue(principal, ttl, purpose, Optional.empty());
  }

  /** Issues an MCP token: accepted only by the MCP endpoint, scoped to {@code scope}'s tools. */
  public Future<IssuedToken> issueMcp(Principal principal, Duration ttl, AgentScope scope) {
    return issue(principal, ttl, TokenPurpose.MCP, Optional.of(scope));
  }

  private Future<IssuedToken> issue(Principal principal, Duration ttl, TokenPurpose purpose, Optional<AgentScope> scope) {
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
      .put("pur", purpose.wire())
      .put("iat", now.getEpochSecond())
      .put("exp", expires.getEpochSecond());
    scope.ifPresent(s -> claims.put("agt", s.agentId()).put("caps", new JsonArray(s.capabilities().stream().sorted().toList())));
    String token = keyring.sign(claims, ISSUER, AUDIENCE);
    Instant expiresAt = Instant.ofEpochSecond(expires.getEpochSecond());
    return store.record(tokenId, principal.id(), purpose.wire(), now, expiresAt)
      .map(v -> new IssuedToken(token, tokenId, principal.id(), expiresAt));
  }

  /** Verifies the value of an {@code authorization} header carrying an API token. */
  public Caller verifyHeader(String authorization) {
    return verify(Bearer.token(authorization), TokenPurpose.API);
  }

  /** Verifies the value of an {@code authorization} header carrying a token for {@code purpose}. */
  public Caller verifyHeader(String authorization, TokenPurpose purpose) {
    return verify(Bearer.token(authorization), purpose);
  }

  /** Verifies an API token. */
  public Caller verify(String token) {
    return verify(token, TokenPurpose.API);
  }

  /**
   * Verifies a token: signature, issuer, audience, expiry, revocation and purpose. Throws the precise
   * {@link AuthErrors} failure otherwise.
   */
  public Caller verify(String token, TokenPurpose expected) {
    return verify(token, java.util.EnumSet.of(expected));
  }

  /** Verifies a token that may have any of the {@code accepted} purposes. */
  public Caller verify(String token, java.util.EnumSet<TokenPurpose> accepted) {
    User user = keyring.verify(token).orElseThrow(AuthErrors::invalidToken);
    // the decoded payload; principal() holds only a subset of it
    JsonObject claims = user.attributes().getJsonObject("accessToken", new JsonObject());
    Caller caller;
    try {
      Set<String> roles = new HashSet<>();
      JsonArray roleArray = claims.getJsonArray("roles", new JsonArray());
      roleArray.forEach(r -> roles.add(String.valueOf(r)));
      // tokens issued before purposes existed carry none: they were API tokens
      TokenPurpose purpose = TokenPurpose.of(claims.getString("pur", TokenPurpose.API.wire())).orElseThrow();
      Optional<AgentScope> scope = Optional.empty();
      if (claims.containsKey("agt")) {
        Set<String> caps = new HashSet<>();
        claims.getJsonArray("caps", new JsonArray()).forEach(c -> caps.add(String.valueOf(c)));
        scope = Optional.of(new AgentScope(claims.getString("agt"), caps));
      }
      caller = new Caller(
        UUID.fromString(claims.getString("sub")),
        PrincipalType.of(claims.getString("ptype")).orElseThrow(),
        roles,
        Optional.of(UUID.fromString(claims.getString("jti"))),
        Instant.ofEpochSecond(claims.getLong("exp")),
        purpose,
        scope);
    } catch (RuntimeException e) {
      throw AuthErrors.invalidToken();
    }
    if (!clock.instant().isBefore(caller.expiresAt())) {
      throw AuthErrors.expired();
    }
    if (revocations.contains(caller.tokenId().orElseThrow())) {
      throw AuthErrors.revoked();
    }
    if (!accepted.contains(caller.purpose())) {
      throw AuthErrors.wrongPurpose(caller.purpose().wire(),
        String.join("' or '", accepted.stream().map(TokenPurpose::wire).toList()));
    }
    use.mark(caller.tokenId().orElseThrow());
    return caller;
  }

  /** Revokes a token by id, here and (through the announcer) on every node. */
  public Future<Boolean> revoke(UUID tokenId, String reason) {
    return store.revoke(tokenId, reason).map(changed -> {
      revocations.add(tokenId);
      live.tokenRevoked(tokenId);
      announcer.token(tokenId);
      return changed;
    });
  }

  /** Revokes every token of a principal, for example when the principal is deleted. */
  public Future<List<UUID>> revokeAllOf(UUID principalId, String reason) {
    return store.revokeAllOf(principalId, reason).map(ids -> {
      revocations.addAll(ids);
      ids.forEach(id -> {
        live.tokenRevoked(id);
        announcer.token(id);
      });
      return ids;
    });
  }

  /**
   * A principal was deleted or disabled: its tokens are revoked and every node ends its open streams
   * (also those it opened without a token, with an SSH key or an HMAC signature).
   */
  public Future<List<UUID>> revokePrincipal(UUID principalId, String reason) {
    return revokeAllOf(principalId, reason).onSuccess(ids -> {
      live.principalRevoked(principalId);
      announcer.principal(principalId);
    });
  }

  /** New keys (a rotation or retirement): new tokens are signed with the first, tokens of removed keys fail. */
  public void useKeys(SigningKeys keys) {
    Keyring next = new Keyring(vertx, keys, ISSUER, AUDIENCE);
    if (!next.currentKid().equals(keyring.currentKid())) {
      org.slf4j.LoggerFactory.getLogger(TokenService.class).info("auth: signing key changed kid={}", next.currentKid());
    }
    keyring = next;
  }

  /** The id of the key new tokens are signed with. */
  public String currentKid() {
    return keyring.currentKid();
  }

  /** When tokens were last used (written in batches). */
  public TokenUse use() {
    return use;
  }

  /** A principal's tokens: ids, purposes, times; never the tokens themselves. */
  public Future<List<TokenStore.TokenInfo>> listOf(UUID principalId) {
    return store.listOf(principalId);
  }

  public Future<java.util.Optional<TokenStore.TokenInfo>> find(UUID tokenId) {
    return store.find(tokenId);
  }

  /** The credentials of open streams on this node, which revocations reach. */
  public LiveCredentials live() {
    return live;
  }

  public RevocationList revocations() {
    return revocations;
  }
}
