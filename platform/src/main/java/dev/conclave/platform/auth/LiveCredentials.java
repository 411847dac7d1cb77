package dev.conclave.platform.auth;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The credentials behind this node's long-lived calls (agent streams, event streams, pack streams),
 * so that a revocation reaches what is already open, not only what comes next. Whatever holds a
 * stream watches its caller; when the caller's token or principal is revoked (here or, through the
 * event bus, on any node) the holder is told, on its own context, and ends the stream.
 */
public final class LiveCredentials {

  private record Watch(Caller caller, Consumer<String> onRevoked, Context context) {
  }

  private final Vertx vertx;
  private final Map<UUID, Set<Watch>> byToken = new ConcurrentHashMap<>();
  private final Map<UUID, Set<Watch>> byPrincipal = new ConcurrentHashMap<>();

  public LiveCredentials(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * Calls {@code onRevoked} (once, with the reason) when {@code caller}'s token or principal is
   * revoked, or its token expires. Returns what releases the watch when the stream ends first.
   * A caller without a token (an SSH-signed agent) has an expiry that bounds when its signature
   * may be used, not how long the stream it opened may last: only revocation ends that stream,
   * as coven-gateway's streams are authenticated once.
   */
  public Runnable watch(Caller caller, Consumer<String> onRevoked) {
    Context context = Vertx.currentContext() != null ? Vertx.currentContext() : vertx.getOrCreateContext();
    boolean[] fired = {false};
    Watch w = new Watch(caller, reason -> {
      if (!fired[0]) {
        fired[0] = true;
        onRevoked.accept(reason);
      }
    }, context);
    caller.tokenId().ifPresent(t -> byToken.computeIfAbsent(t, k -> ConcurrentHashMap.newKeySet()).add(w));
    byPrincipal.computeIfAbsent(caller.principalId(), k -> ConcurrentHashMap.newKeySet()).add(w);
    long timer = caller.tokenId().isEmpty() ? -1
      : vertx.setTimer(Math.max(1, caller.expiresAt().toEpochMilli() - System.currentTimeMillis()), t -> fire(w, "the token expired"));
    return () -> {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
      caller.tokenId().ifPresent(t -> remove(byToken, t, w));
      remove(byPrincipal, caller.principalId(), w);
    };
  }

  public void tokenRevoked(UUID tokenId) {
    Set<Watch> watches = byToken.remove(tokenId);
    if (watches != null) {
      watches.forEach(w -> fire(w, "the token was revoked"));
    }
  }

  public void principalRevoked(UUID principalId) {
    Set<Watch> watches = byPrincipal.remove(principalId);
    if (watches != null) {
      watches.forEach(w -> fire(w, "the principal was deleted or disabled"));
    }
  }

  /** The principals with open streams here, for the periodic re-check. */
  public Set<UUID> watchedPrincipals() {
    return new HashSet<>(byPrincipal.keySet());
  }

  private void fire(Watch w, String reason) {
    w.context().runOnContext(v -> w.onRevoked().accept(reason));
  }

  private static void remove(Map<UUID, Set<Watch>> map, UUID key, Watch w) {
    map.computeIfPresent(key, (k, set) -> {
      set.remove(w);
      return set.isEmpty() ? null : set;
    });
  }
}
