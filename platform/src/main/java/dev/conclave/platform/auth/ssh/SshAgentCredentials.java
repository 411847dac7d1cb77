package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.GrpcCredentials;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * coven-gateway's SSH-key authentication of agents, wire-compatible with its agents: a call carries
 * {@code x-ssh-pubkey}, {@code x-ssh-signature} (over {@code "<timestamp>|<nonce>"}),
 * {@code x-ssh-timestamp} and {@code x-ssh-nonce} instead of a bearer token.
 *
 * <p>The order of the checks is the point. Cheap checks of the headers and of the timestamp's
 * window come first; then the signature. Only a call whose signature verified touches the database:
 * unauthenticated garbage never writes a row. The nonce is then recorded atomically in PostgreSQL
 * (first insert wins, cluster-wide) before the call is accepted, so a replay, even sent at the same
 * instant to another node, is refused. coven-gateway instead marks nonces in a per-node in-memory
 * cache, before it verifies the signature: any node of a cluster would accept a replay, and forged
 * calls could burn an agent's nonces or flush the cache.
 *
 * <p>The caller is the agent principal with the key's fingerprint, with that principal's roles; its
 * expiry is the signature's timestamp plus {@link #MAX_AGE}.
 *
 * <p>An unknown key (policies pending and approve) makes a principal, so what anyone who reaches the
 * port can make a node write is bounded: a source address registers at most
 * {@code CONCLAVE_SSH_NEW_KEYS_PER_HOUR} unknown keys per hour on a node (checked before anything is
 * written, the nonce included), and at most {@code CONCLAVE_SSH_PENDING_MAX} pending principals made
 * this way exist at once; both refusals are {@code RESOURCE_EXHAUSTED}.
 */
public final class SshAgentCredentials implements GrpcCredentials {

  private static final Logger LOG = LoggerFactory.getLogger(SshAgentCredentials.class);

  /** How old a signature's timestamp may be (coven-gateway's window). */
  public static final Duration MAX_AGE = Duration.ofMinutes(5);
  /** How far in the future it may be, for agents whose clock runs ahead. */
  public static final Duration MAX_AHEAD = Duration.ofMinutes(1);

  /** What unknown keys may register ({@code CONCLAVE_SSH_PENDING_MAX}, {@code CONCLAVE_SSH_NEW_KEYS_PER_HOUR}). */
  public record UnknownKeyLimits(int maxPending, int perSourcePerHour) {
  }

  private final KeyPrincipals principals;
  private final NonceStore nonces;
  private final Clock clock;
  private final UnknownKeyPolicy policy;
  private final NewKeyQuota quota;

  SshAgentCredentials(KeyPrincipals principals, NonceStore nonces, Clock clock, UnknownKeyPolicy policy, NewKeyQuota quota) {
    this.principals = principals;
    this.nonces = nonces;
    this.clock = clock;
    this.policy = policy;
    this.quota = quota;
  }

  /** The node's SSH credentials: sweeps expired nonces periodically, and offers itself to the gRPC gate. */
  public static EdgeContribution start(Vertx vertx, Pool pool, PrincipalStore principals, Clock clock, UnknownKeyPolicy policy,
                                       UnknownKeyLimits limits) {
    SshSignatures.warmUp();
    NonceStore nonces = new NonceStore(pool);
    nonces.sweepPeriodically(vertx, clock);
    SshAgentCredentials credentials = new SshAgentCredentials(new KeyPrincipals(principals, pool, limits.maxPending()), nonces, clock,
      policy, new NewKeyQuota(limits.perSourcePerHour()));
    LOG.info("auth: ssh agent keys accepted on gRPC unknown-keys={}", policy.name().toLowerCase(java.util.Locale.ROOT));
    return new EdgeContribution() {
      @Override
      public List<GrpcCredentials> grpcCredentials() {
        return List.of(credentials);
      }
    };
  }

  @Override
  public boolean present(HttpServerRequest request) {
    return SshAuthRequest.present(request.headers());
  }

  @Override
  public Future<Caller> verify(HttpServerRequest request) {
    SshAuthRequest auth;
    AgentKey key;
    try {
      auth = SshAuthRequest.from(request.headers());
      checkWindow(auth.timestamp());
      key = SshSignatures.parsePublicKey(auth.pubkey());
      SshSignatures.verify(key, auth.signedMessage(), auth.signature());
    } catch (ConclaveException e) {
      LOG.debug("auth: ssh signature refused path={} code={} reason={}", request.path(), e.code(), e.detail());
      return Future.failedFuture(e);
    }
    return accept(auth, key, request.remoteAddress() == null ? "" : request.remoteAddress().host());
  }

  /** The signature is good: find the principal, spend the nonce, decide. */
  private Future<Caller> accept(SshAuthRequest auth, AgentKey key, String source) {
    Instant signedAt = Instant.ofEpochSecond(auth.timestamp());
    return principals.find(key).compose(found -> {
      if (found.isEmpty() && policy == UnknownKeyPolicy.REJECT) {
        // nothing is granted, so a replay of this call gains nothing either: no row needed
        return Future.failedFuture(SshAuthErrors.unknownKey(key.fingerprint()));
      }
      Future<Void> mayRegister = found.isPresent() ? Future.succeededFuture() : mayRegister(source);
      return mayRegister.compose(v -> nonces.use(key.fingerprint(), auth.nonce(), signedAt)).compose(fresh -> {
        if (!fresh) {
          LOG.info("auth: ssh nonce replayed fp={} nonce={}", key.fingerprint(), auth.nonce());
          return Future.failedFuture(SshAuthErrors.nonceReused());
        }
        return found.isPresent() ? caller(found.get(), false, signedAt)
          : principals.register(key, policy == UnknownKeyPolicy.APPROVE ? PrincipalStatus.APPROVED : PrincipalStatus.PENDING)
            .compose(created -> created.isPresent() ? caller(created.get(), true, signedAt)
              : Future.failedFuture(SshAuthErrors.pendingLimit(principals.maxPending())));
      });
    });
  }

  /** Whether an unknown key from {@code source} may make a principal now; refused before anything is written. */
  private Future<Void> mayRegister(String source) {
    if (!quota.take(source, clock.millis())) {
      return Future.failedFuture(SshAuthErrors.newKeysLimit(quota.perHour()));
    }
    if (policy != UnknownKeyPolicy.PENDING) {
      return Future.succeededFuture();
    }
    return principals.roomForPending().compose(room -> room ? Future.<Void>succeededFuture()
      : Future.failedFuture(SshAuthErrors.pendingLimit(principals.maxPending())));
  }

  private static Future<Caller> caller(Principal principal, boolean justCreated, Instant signedAt) {
    return switch (principal.status()) {
      case APPROVED -> Future.succeededFuture(new Caller(principal.id(), PrincipalType.AGENT, Set.copyOf(principal.roles()),
        Optional.empty(), signedAt.plus(MAX_AGE)));
      case PENDING -> Future.failedFuture(SshAuthErrors.pending(principal.id(), justCreated));
      case REVOKED -> Future.failedFuture(SshAuthErrors.revoked(principal.id()));
    };
  }

  private void checkWindow(long timestamp) {
    Instant now = clock.instant();
    // beyond ±2^40 s (35,000 years) Instant arithmetic could overflow; such stamps are simply out of the window
    long bounded = Math.max(-(1L << 40), Math.min(1L << 40, timestamp));
    Duration age = Duration.between(Instant.ofEpochSecond(bounded), now);
    if (age.compareTo(MAX_AGE) > 0) {
      throw SshAuthErrors.expired(age.toSeconds(), MAX_AGE.toSeconds());
    }
    if (age.negated().compareTo(MAX_AHEAD) > 0) {
      throw SshAuthErrors.inFuture(age.negated().toSeconds(), MAX_AHEAD.toSeconds());
    }
  }
}
