package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Issues and verifies bearer tokens: HS256 JWTs (vertx-auth-jwt). A token proves only which record it
 * is: its {@code jti} must be one this installation issued ({@code auth.tokens}, or for an MCP token a
 * live agent session), its principal's type, roles and status are read from PostgreSQL, and its
 * {@code nbf} and {@code exp} are honoured. Verification stays in memory on the hot path
 * ({@link IssuedTokens}, {@link PrincipalDirectory}, {@link RevocationList}); a token this node has
 * not seen yet (one the CLI issued a moment ago) costs one query, once.
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
  private final IssuedTokens issued;
  private final PrincipalDirectory directory;
  private final SessionTokens sessions;
  private final TokenVerifier verifier;

  /** Tells every node (this one included) about a revocation or a change made here. */
  public interface Announcer {
    void token(UUID tokenId);

    void principal(UUID principalId);

    /** A principal's row changed (approved, roles): nodes read it again. */
    default void principalChanged(UUID principalId) {
    }

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

  /** A token service that keeps its own views (the CLI, tests). */
  public TokenService(Vertx vertx, SigningKeys keys, TokenStore store, RevocationList revocations, Clock clock,
                      LiveCredentials live, Announcer announcer) {
    this(vertx, keys, store, revocations, clock, live, announcer, new IssuedTokens(store), new PrincipalDirectory(store),
      SessionTokens.standalone(vertx));
  }

  public TokenService(Vertx vertx, SigningKeys keys, TokenStore store, RevocationList revocations, Clock clock,
                      LiveCredentials live, Announcer announcer, IssuedTokens issued, PrincipalDirectory directory,
                      SessionTokens sessions) {
    this.vertx = vertx;
    this.keyring = new Keyring(vertx, keys, ISSUER, AUDIENCE);
    this.store = store;
    this.revocations = revocations;
    this.clock = clock;
    this.live = live;
    this.announcer = announcer;
    this.issued = issued;
    this.directory = directory;
    this.sessions = sessions;
    this.verifier = new TokenVerifier(clock, revocations, issued, directory, sessions, use);
  }

  /** Issues an API token: accepted by the gRPC services and the HTTP API. */
  public Future<IssuedToken> issue(Principal principal, Duration ttl) {
    return issue(principal, ttl, TokenPurpose.API);
  }

  /** Issues a token for {@code purpose}, which must not be MCP (an MCP token belongs to a session: {@link #issueMcp}). */
  public Future<IssuedToken> issue(Principal principal, Duration ttl, TokenPurpose purpose) {
    if (purpose == TokenPurpose.MCP) {
      return Future.failedFuture(AuthErrors.purposeNotIssuable(purpose.wire()));
    }
    if (invalidTtl(ttl)) {
      return Future.failedFuture(AuthErrors.invalidTtl(ttl.getSeconds(), MAX_TTL.getSeconds()));
    }
    Instant now = clock.instant();
    Instant expiresAt = Instant.ofEpochSecond(now.plus(ttl).getEpochSecond());
    UUID tokenId = UUID.randomUUID();
    String token = sign(principal, tokenId, purpose, now, expiresAt, Optional.empty());
    return store.record(tokenId, principal.id(), purpose.wire(), now, expiresAt).map(v -> {
      issued.remember(new TokenStore.Issued(tokenId, principal.id(), purpose, expiresAt));
      return new IssuedToken(token, tokenId, principal.id(), expiresAt);
    });
  }

  /**
   * Issues the MCP token of one agent session: accepted only at the MCP endpoint, for the tools of
   * {@code scope}, and only while the session lasts ({@link SessionTokens.SessionToken#end}), at most
   * {@code ttl}. It is not stored in {@code auth.tokens}.
   */
  public SessionTokens.SessionToken issueMcp(Principal principal, Duration ttl, AgentScope scope) {
    if (invalidTtl(ttl)) {
      throw AuthErrors.invalidTtl(ttl.getSeconds(), MAX_TTL.getSeconds());
    }
    Instant now = clock.instant();
    Instant expiresAt = Instant.ofEpochSecond(now.plus(ttl).getEpochSecond());
    UUID tokenId = UUID.randomUUID();
    String token = sign(principal, tokenId, TokenPurpose.MCP, now, expiresAt, Optional.of(scope.agentId()));
    return sessions.record(token, tokenId, principal.id(), scope, ttl);
  }

  private String sign(Principal principal, UUID tokenId, TokenPurpose purpose, Instant now, Instant expiresAt, Optional<String> agent) {
    // type and roles ride along for people reading a token; verification never trusts them
    JsonObject claims = new JsonObject()
      .put("sub", principal.id().toString())
      .put("jti", tokenId.toString())
      .put("ptype", principal.type().wire())
      .put("roles", new io.vertx.core.json.JsonArray(List.copyOf(principal.roles())))
      .put("pur", purpose.wire())
      .put("iat", now.getEpochSecond())
      .put("exp", expiresAt.getEpochSecond());
    agent.ifPresent(a -> claims.put("agt", a));
    return keyring.sign(claims, ISSUER, AUDIENCE);
  }

  private static boolean invalidTtl(Duration ttl) {
    return ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0;
  }

  /** Verifies the value of an {@code authorization} header carrying an API token. */
  public Future<Caller> authenticateHeader(String authorization) {
    return authenticateHeader(authorization, TokenPurpose.API);
  }

  /** Verifies the value of an {@code authorization} header carrying a token for {@code purpose}. */
  public Future<Caller> authenticateHeader(String authorization, TokenPurpose purpose) {
    try {
      return authenticate(Bearer.token(authorization), EnumSet.of(purpose));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** Verifies an API token. */
  public Future<Caller> authenticate(String token) {
    return authenticate(token, EnumSet.of(TokenPurpose.API));
  }

  /**
   * Verifies a token that may have any of the {@code accepted} purposes ({@link TokenVerifier}): fails
   * with the precise {@link AuthErrors} failure. The future is already complete when this node holds
   * everything it needs in memory, which is every call but the first of a token on this node.
   */
  public Future<Caller> authenticate(String token, EnumSet<TokenPurpose> accepted) {
    return verifier.authenticate(keyring, token, accepted);
  }

  /** A token's record this node learnt of without issuing it (the admin's, from its file): its first use needs no query. */
  void remember(TokenStore.Issued record) {
    issued.remember(record);
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
    principalChanged(principalId);
    return revokeAllOf(principalId, reason).onSuccess(ids -> {
      live.principalRevoked(principalId);
      announcer.principal(principalId);
    });
  }

  /** A principal's row changed (its status or roles): every node reads it again before trusting it. */
  public void principalChanged(UUID principalId) {
    directory.forget(principalId);
    announcer.principalChanged(principalId);
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
