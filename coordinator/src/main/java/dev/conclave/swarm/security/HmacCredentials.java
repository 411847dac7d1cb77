package dev.conclave.swarm.security;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.HttpCredentials;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.store.SignatureStore;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * HMAC-signed requests as an alternative to bearer tokens on {@code /api/} routes (see
 * {@link RequestSignature} for the recipe). A request is accepted when the agent exists and has a
 * secret, the timestamp is within the window of the coordinator's clock, the signature matches
 * (compared in constant time), and the signature was not used before (recorded cluster-wide in
 * PostgreSQL until it could no longer pass the window; only verified signatures are recorded, so a
 * forged request writes nothing). The caller is the principal that owns the
 * agent, without roles, and the request may act only as that agent ({@link SignedAgent}).
 */
public final class HmacCredentials implements HttpCredentials {

  private static final Pattern HEX_SIGNATURE = Pattern.compile("[0-9a-fA-F]{64}");

  private record CachedSigner(SignatureStore.Signer signer, long readAt) {
  }

  private static final long SIGNER_TTL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
  private static final int MAX_CACHED_SIGNERS = 10_000;

  private final SignatureStore store;
  /** Agent id → its signer as last read; shared by the edge's event loops. */
  private final java.util.Map<String, CachedSigner> signers = new java.util.concurrent.ConcurrentHashMap<>();
  private final AgentSecrets secrets;
  private final Clock clock;
  private final Duration window;

  public HmacCredentials(SignatureStore store, AgentSecrets secrets, Clock clock, Duration window) {
    this.store = store;
    this.secrets = secrets;
    this.clock = clock;
    this.window = window;
  }

  @Override
  public boolean present(HttpServerRequest request) {
    return request.getHeader(RequestSignature.SIGNATURE_HEADER) != null;
  }

  @Override
  public Future<Caller> verify(RoutingContext ctx) {
    try {
      HttpServerRequest request = ctx.request();
      String agentId = header(request, RequestSignature.AGENT_HEADER);
      String timestamp = header(request, RequestSignature.TIMESTAMP_HEADER);
      String signature = header(request, RequestSignature.SIGNATURE_HEADER).toLowerCase(Locale.ROOT);
      if (!HEX_SIGNATURE.matcher(signature).matches()) {
        throw SwarmErrors.signatureInvalid(RequestSignature.SIGNATURE_HEADER + " must be 64 hex digits (HMAC-SHA256)");
      }
      Instant signedAt = parse(timestamp);
      if (Duration.between(signedAt, clock.instant()).abs().compareTo(window) > 0) {
        throw SwarmErrors.signatureExpired(window.toSeconds());
      }
      Buffer body = ctx.body() == null ? null : ctx.body().buffer();
      String canonical = RequestSignature.canonical(timestamp, request.method().name(), request.uri(),
        body == null ? new byte[0] : body.getBytes());
      Instant validUntil = signedAt.plus(window);
      // verify first, then remember: a forged request writes nothing
      return verified(agentId, canonical, signature).compose(signer -> store.record(agentId, signature, validUntil)
        .compose(recorded -> {
          if (recorded.isEmpty()) {
            return Future.failedFuture(SwarmErrors.signatureInvalid("agent " + agentId + " does not exist"));
          }
          if (!java.util.Objects.equals(recorded.get().secretSalt(), signer.secretSalt())) {
            // verified against a secret that was rotated since: the agent must sign with the new one
            signers.remove(agentId);
            return Future.failedFuture(SwarmErrors.signatureInvalid("it does not match the request"));
          }
          if (!recorded.get().fresh()) {
            return Future.failedFuture(SwarmErrors.signatureReplayed());
          }
          if (!recorded.get().ownerActive()) {
            return Future.failedFuture(SwarmErrors.signerRevoked(agentId));
          }
          SignedAgent.set(ctx, agentId);
          return Future.succeededFuture(new Caller(signer.owner(), PrincipalType.AGENT, Set.of(), Optional.empty(), validUntil));
        }));
    } catch (ConclaveException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * The signer, once the signature matches its secret. The salt is cached briefly (it changes only
   * when the agent registers again); a mismatch re-reads it once before refusing.
   */
  private Future<SignatureStore.Signer> verified(String agentId, String canonical, String signature) {
    CachedSigner cached = signers.get(agentId);
    if (cached != null && System.nanoTime() - cached.readAt() < SIGNER_TTL_NANOS && matches(agentId, cached.signer(), canonical, signature)) {
      return Future.succeededFuture(cached.signer());
    }
    return store.signer(agentId).compose(found -> {
      if (found.isEmpty() || found.get().secretSalt() == null || found.get().owner() == null) {
        signers.remove(agentId);
        return Future.failedFuture(SwarmErrors.signatureInvalid("agent " + agentId + " has no HMAC secret; REGISTER over HTTP issues one"));
      }
      if (signers.size() >= MAX_CACHED_SIGNERS) {
        signers.clear();
      }
      signers.put(agentId, new CachedSigner(found.get(), System.nanoTime()));
      return matches(agentId, found.get(), canonical, signature) ? Future.succeededFuture(found.get())
        : Future.failedFuture(SwarmErrors.signatureInvalid("it does not match the request"));
    });
  }

  private boolean matches(String agentId, SignatureStore.Signer signer, String canonical, String signature) {
    return RequestSignature.matches(RequestSignature.sign(secrets.secretFor(agentId, signer.secretSalt()), canonical), signature);
  }

  private static String header(HttpServerRequest request, String name) {
    String value = request.getHeader(name);
    if (value == null || value.isBlank()) {
      throw SwarmErrors.signatureInvalid("the " + name + " header is missing");
    }
    return value.trim();
  }

  private static Instant parse(String timestamp) {
    try {
      return OffsetDateTime.parse(timestamp).toInstant();
    } catch (DateTimeParseException e) {
      throw SwarmErrors.signatureInvalid(RequestSignature.TIMESTAMP_HEADER + " must be an ISO-8601 timestamp, e.g. 2026-01-19T10:00:00.000Z");
    }
  }
}
