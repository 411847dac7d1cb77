package dev.conclave.platform.auth;

import io.vertx.core.Future;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ids of revoked tokens that have not expired yet, held in memory so that every call can be
 * checked without a database round trip. It is filled from PostgreSQL at start, refreshed
 * periodically, and told at once about revocations on this node and (over the event bus) on others.
 */
public final class RevocationList {

  /** Revocations are re-read with this much overlap, so a row committed late is not missed. */
  private static final long OVERLAP_SECONDS = 30;

  private final Map<UUID, Boolean> revoked = new ConcurrentHashMap<>();
  private final TokenStore store;
  private volatile Instant readUpTo = Instant.EPOCH;

  public RevocationList(TokenStore store) {
    this.store = store;
  }

  public boolean contains(UUID tokenId) {
    return revoked.containsKey(tokenId);
  }

  public void add(UUID tokenId) {
    revoked.put(tokenId, Boolean.TRUE);
  }

  public void addAll(List<UUID> tokenIds) {
    tokenIds.forEach(this::add);
  }

  public int size() {
    return revoked.size();
  }

  /** Reads revocations recorded since the last refresh (all of them the first time); returns the ids that are new here. */
  public Future<List<UUID>> refresh() {
    Instant from = readUpTo.equals(Instant.EPOCH) ? Instant.EPOCH : readUpTo.minusSeconds(OVERLAP_SECONDS);
    return store.revokedSince(from).map(list -> {
      List<UUID> added = new java.util.ArrayList<>();
      for (TokenStore.Revocation r : list) {
        if (revoked.put(r.tokenId(), Boolean.TRUE) == null) {
          added.add(r.tokenId());
        }
        if (r.revokedAt().isAfter(readUpTo)) {
          readUpTo = r.revokedAt();
        }
      }
      return added;
    });
  }
}
