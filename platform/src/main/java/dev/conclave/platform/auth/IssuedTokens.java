package dev.conclave.platform.auth;

import io.vertx.core.Future;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's memory of issued tokens ({@code auth.tokens}): a token's record is read from PostgreSQL
 * the first time the token is presented here (or kept when this node issued it), then verification
 * needs no database round trip. A record never changes, except by revocation, which the
 * {@link RevocationList} carries; a record is forgotten when its token expires. An id no token has is
 * remembered too, for a minute, so that a stream of calls with a forged id costs one query a minute.
 */
public final class IssuedTokens {

  /** Records held at most; past this, a node reads the records of tokens beyond it on every use. */
  static final int MAX_KNOWN = 200_000;
  static final int MAX_UNKNOWN = 10_000;
  static final long UNKNOWN_SECONDS = 60;

  private final TokenStore store;
  private final Map<UUID, TokenStore.Issued> known = new ConcurrentHashMap<>();
  private final Map<UUID, Instant> unknownUntil = new ConcurrentHashMap<>();

  public IssuedTokens(TokenStore store) {
    this.store = store;
  }

  Optional<TokenStore.Issued> known(UUID tokenId) {
    return Optional.ofNullable(known.get(tokenId));
  }

  /** True when {@code tokenId} was looked up less than a minute ago and no token had it. */
  boolean knownUnknown(UUID tokenId, Instant now) {
    Instant until = unknownUntil.get(tokenId);
    return until != null && now.isBefore(until);
  }

  void remember(TokenStore.Issued issued) {
    if (known.size() < MAX_KNOWN) {
      known.put(issued.tokenId(), issued);
    }
  }

  /**
   * Reads the record and remembers what it found. Each caller reads for itself (its answer comes back
   * on its own context); the first answer makes every later call a memory read.
   */
  Future<Optional<TokenStore.IssuedWithPrincipal>> load(UUID tokenId, Instant now) {
    return store.findIssued(tokenId).onSuccess(found -> {
      if (found.isPresent()) {
        remember(found.get().issued());
      } else {
        if (unknownUntil.size() >= MAX_UNKNOWN) {
          unknownUntil.clear();
        }
        unknownUntil.put(tokenId, now.plusSeconds(UNKNOWN_SECONDS));
      }
    });
  }

  /** Forgets the records of expired tokens and stale unknown ids. */
  public void sweep(Instant now) {
    known.values().removeIf(i -> !now.isBefore(i.expiresAt()));
    unknownUntil.values().removeIf(until -> !now.isBefore(until));
  }

  public int size() {
    return known.size();
  }
}
