package dev.conclave.platform.auth;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;

import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * How a bearer token is verified. The signature and claims first ({@code nbf}, {@code exp},
 * revocation, purpose), with no lookup; then the token's record: for a stored token its row in
 * {@code auth.tokens}, which must say what the claims say (principal, purpose, expiry), for an MCP
 * token its agent's live session; then the principal, whose status must be approved and whose type
 * and roles make the caller. Records and principals are held in memory once read, so only the first
 * call of a token on a node waits for PostgreSQL.
 */
final class TokenVerifier {

  private final Clock clock;
  private final RevocationList revocations;
  private final IssuedTokens issued;
  private final PrincipalDirectory directory;
  private final SessionTokens sessions;
  private final TokenUse use;
  /** When this node last looked up a file credential it did not know (epoch millis). */
  private final java.util.concurrent.atomic.AtomicLong lastFileLookup = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE / 2);

  TokenVerifier(Clock clock, RevocationList revocations, IssuedTokens issued, PrincipalDirectory directory, SessionTokens sessions,
                TokenUse use) {
    this.clock = clock;
    this.revocations = revocations;
    this.issued = issued;
    this.directory = directory;
    this.sessions = sessions;
    this.use = use;
  }

  Future<Caller> authenticate(Keyring keyring, String token, EnumSet<TokenPurpose> accepted) {
    if (AdminTokenFile.isCandidate(token)) {
      return authenticateFromFile(token, accepted);
    }
    Claims claims;
    try {
      claims = checkClaims(keyring, token, accepted);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    if (claims.purpose() == TokenPurpose.MCP) {
      return onCallersContext(sessions.resolve(claims).compose(scope -> principal(claims.subject())
        .map(p -> caller(p, claims, claims.expiresAt(), Optional.of(scope)))));
    }
    Optional<TokenStore.Issued> record = issued.known(claims.tokenId());
    Optional<Principal> principal = record.flatMap(r -> directory.known(r.principalId()));
    if (record.isPresent() && principal.isPresent()) {
      try {
        return Future.succeededFuture(accept(claims, record.get(), principal.get()));
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }
    if (record.isPresent()) {
      return onCallersContext(principal(record.get().principalId()).map(p -> accept(claims, record.get(), p)));
    }
    Instant now = clock.instant();
    if (issued.knownUnknown(claims.tokenId(), now)) {
      return Future.failedFuture(AuthErrors.unknownToken());
    }
    long started = System.nanoTime();
    return onCallersContext(issued.load(claims.tokenId(), now).map(found -> {
      TokenStore.IssuedWithPrincipal f = found.orElseThrow(AuthErrors::unknownToken);
      directory.remember(f.principal(), started);
      if (f.revoked()) {
        revocations.add(f.issued().tokenId());
        throw AuthErrors.revoked();
      }
      return accept(claims, f.issued(), f.principal());
    }));
  }

  /**
   * A credential of the kind {@code CONCLAVE_ADMIN_TOKEN_FILE} holds: no signature, so its record is all
   * there is; it must exist, be live and be an API token, and its principal decides as for a JWT. Such
   * records are few and every node that started with the file holds its own in memory, so a value this
   * node does not know is looked up at most once a second: a stream of made-up values cannot turn into a
   * stream of queries. An unknown value is {@code token_invalid}, as a malformed token is.
   */
  private Future<Caller> authenticateFromFile(String token, EnumSet<TokenPurpose> accepted) {
    if (!accepted.contains(TokenPurpose.API)) {
      // an endpoint for other tokens (MCP, session) answers as it does to any token it cannot read
      return Future.failedFuture(AuthErrors.invalidToken());
    }
    UUID id = AdminTokenFile.tokenId(token);
    if (revocations.contains(id)) {
      return Future.failedFuture(AuthErrors.revoked());
    }
    Instant now = clock.instant();
    Optional<TokenStore.Issued> record = issued.known(id);
    if (record.isPresent()) {
      try {
        Claims claims = claimsOf(record.get(), now);
        return onCallersContext(principal(record.get().principalId()).map(p -> accept(claims, record.get(), p)));
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }
    long last = lastFileLookup.get();
    if (issued.knownUnknown(id, now) || now.toEpochMilli() - last < 1000 || !lastFileLookup.compareAndSet(last, now.toEpochMilli())) {
      return Future.failedFuture(AuthErrors.invalidToken());
    }
    long started = System.nanoTime();
    return onCallersContext(issued.load(id, now).map(found -> {
      TokenStore.IssuedWithPrincipal f = found.orElseThrow(AuthErrors::invalidToken);
      directory.remember(f.principal(), started);
      if (f.revoked()) {
        revocations.add(f.issued().tokenId());
        throw AuthErrors.revoked();
      }
      return accept(claimsOf(f.issued(), now), f.issued(), f.principal());
    }));
  }

  /** What a JWT's claims would say, for a record that has no JWT: only an unexpired API token is one. */
  private static Claims claimsOf(TokenStore.Issued record, Instant now) {
    if (record.purpose() != TokenPurpose.API) {
      throw AuthErrors.invalidToken();
    }
    if (!now.isBefore(record.expiresAt())) {
      throw AuthErrors.expired();
    }
    return new Claims(record.principalId(), record.tokenId(), record.purpose(), record.expiresAt(), Optional.empty(), Optional.empty());
  }

  /**
   * A verification that had to wait answers on the context that asked (an edge's event loop), whatever
   * context the shared data or the pool answered on, so the caller carries on with its request there.
   */
  private static <T> Future<T> onCallersContext(Future<T> result) {
    Context asking = Vertx.currentContext();
    if (asking == null) {
      return result;
    }
    Promise<T> answer = Promise.promise();
    result.onComplete(ar -> {
      if (Vertx.currentContext() == asking) {
        answer.handle(ar);
      } else {
        asking.runOnContext(v -> answer.handle(ar));
      }
    });
    return answer.future();
  }

  /** Signature and claims: everything that needs no record. */
  private Claims checkClaims(Keyring keyring, String token, EnumSet<TokenPurpose> accepted) {
    User user = keyring.verify(token).orElseThrow(AuthErrors::invalidToken);
    // the decoded payload; principal() holds only a subset of it
    Claims claims = Claims.of(user.attributes().getJsonObject("accessToken", new JsonObject()));
    Instant now = clock.instant();
    if (claims.notBefore().filter(now::isBefore).isPresent()) {
      throw AuthErrors.notYetValid();
    }
    if (!now.isBefore(claims.expiresAt())) {
      throw AuthErrors.expired();
    }
    if (revocations.contains(claims.tokenId())) {
      throw AuthErrors.revoked();
    }
    if (!accepted.contains(claims.purpose())) {
      throw AuthErrors.wrongPurpose(claims.purpose().wire(),
        String.join("' or '", accepted.stream().map(TokenPurpose::wire).toList()));
    }
    return claims;
  }

  /** The token's record must say what its claims say; then its principal decides. */
  private Caller accept(Claims claims, TokenStore.Issued record, Principal principal) {
    if (!record.principalId().equals(claims.subject()) || record.purpose() != claims.purpose()
      || !record.expiresAt().equals(claims.expiresAt())) {
      throw AuthErrors.invalidToken();
    }
    Caller caller = caller(principal, claims, record.expiresAt(), Optional.empty());
    use.mark(record.tokenId());
    return caller;
  }

  private Future<Principal> principal(UUID id) {
    Optional<Principal> known = directory.known(id);
    if (known.isPresent()) {
      return Future.succeededFuture(known.get());
    }
    return directory.load(id).map(found -> found.orElseThrow(() -> AuthErrors.principalInactive("deleted")));
  }

  /**
   * The caller a token proves, as its principal is now. A disabled or deleted principal's token is
   * refused (its tokens are normally revoked with it; this holds when the row was changed otherwise).
   * A pending principal's token authenticates, with no roles until an admin approves it: it reaches
   * the routes any principal may call, where an agent's registration answers "pending" as Coven does.
   */
  private static Caller caller(Principal principal, Claims claims, Instant expiresAt, Optional<AgentScope> scope) {
    if (principal.status() == PrincipalStatus.REVOKED) {
      throw AuthErrors.principalInactive("disabled or deleted");
    }
    Set<String> roles = principal.approved() ? new HashSet<>(principal.roles()) : Set.of();
    return new Caller(principal.id(), principal.type(), roles, Optional.of(claims.tokenId()), expiresAt, claims.purpose(), scope);
  }
}
