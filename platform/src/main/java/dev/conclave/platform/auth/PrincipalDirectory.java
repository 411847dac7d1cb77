package dev.conclave.platform.auth;

import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's view of the principals whose tokens it verifies: type, roles and status come from here,
 * that is from PostgreSQL, never from a token's claims. A principal is read the first time one of its
 * tokens is presented; a change made through any node (approve, disable, delete) is announced on the
 * event bus and forgotten here at once, to be read again at its next use; and every principal held
 * is re-read periodically, so a change made in the database directly holds within that period.
 */
public final class PrincipalDirectory {

  /** Ids per re-read statement. */
  static final int REFRESH_CHUNK = 5_000;

  private final TokenStore store;
  private final Map<UUID, Principal> known = new ConcurrentHashMap<>();
  /** When each principal was last forgotten (System.nanoTime): a read that started before must not bring it back. */
  private final Map<UUID, Long> changedAt = new ConcurrentHashMap<>();

  public PrincipalDirectory(TokenStore store) {
    this.store = store;
  }

  Optional<Principal> known(UUID id) {
    return Optional.ofNullable(known.get(id));
  }

  /** Keeps {@code principal} as read at {@code readStarted} (System.nanoTime), unless it changed since. */
  void remember(Principal principal, long readStarted) {
    if (!changedSince(principal.id(), readStarted)) {
      known.put(principal.id(), principal);
    }
  }

  /** The principal changed somewhere: read it again at its next use. */
  public void forget(UUID id) {
    changedAt.put(id, System.nanoTime());
    known.remove(id);
  }

  /** Reads one principal (deleted ones come back as revoked); empty when there is none. */
  Future<Optional<Principal>> load(UUID id) {
    long started = System.nanoTime();
    return store.principals(List.of(id)).map(list -> {
      list.forEach(p -> remember(p, started));
      return list.stream().findFirst();
    });
  }

  /** Re-reads every principal held here. */
  public Future<Void> refresh() {
    long started = System.nanoTime();
    List<UUID> ids = new ArrayList<>(known.keySet());
    List<Future<?>> reads = new ArrayList<>();
    for (int i = 0; i < ids.size(); i += REFRESH_CHUNK) {
      List<UUID> chunk = ids.subList(i, Math.min(ids.size(), i + REFRESH_CHUNK));
      reads.add(store.principals(chunk).onSuccess(found -> {
        Set<UUID> missing = new HashSet<>(chunk);
        for (Principal p : found) {
          missing.remove(p.id());
          if (!changedSince(p.id(), started)) {
            known.computeIfPresent(p.id(), (k, old) -> p);
          }
        }
        missing.forEach(known::remove);
      }));
    }
    return Future.all(reads).onComplete(ar -> changedAt.values().removeIf(at -> at - started < 0)).mapEmpty();
  }

  public int size() {
    return known.size();
  }

  private boolean changedSince(UUID id, long started) {
    Long at = changedAt.get(id);
    return at != null && at - started >= 0;
  }
}
