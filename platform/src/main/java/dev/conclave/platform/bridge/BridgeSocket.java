package dev.conclave.platform.bridge;

import dev.conclave.platform.auth.Caller;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** What the bridge knows about one socket: who it is, what it follows, and the revocation watches. */
final class BridgeSocket {

  final SockJSSocket socket;
  /**
   * The caller of the session cookie the socket opened with, if any; still being verified when the
   * cookie's token is new to this node (a REGISTER meanwhile waits for it).
   */
  final io.vertx.core.Future<Optional<Caller>> session;
  /** A subscription the bridge accepted: the topic feeding it, who subscribed, and what releases its access re-checks. */
  record Subscription(BridgeTopic topic, Caller caller, Runnable unwatch) {
  }

  /** Address → its accepted subscription. */
  final Map<String, Subscription> subscriptions = new HashMap<>();
  /** The last delivery that waits for a visibility check; later ones queue behind it, so order holds. */
  io.vertx.core.Future<Void> deliveries = io.vertx.core.Future.succeededFuture();
  /** Addresses whose REGISTER is being checked, so a second one in the meantime is refused. */
  final Set<String> pending = new HashSet<>();
  private final Set<UUID> watchedTokens = new HashSet<>();
  /** The principals this socket is counted against (ConnectionGuard), each once. */
  private final Set<UUID> heldFor = new HashSet<>();
  private final List<Runnable> releases = new ArrayList<>();
  private boolean released;
  /** Characters written to the socket that it has not taken yet. */
  long unwritten;
  boolean closed;

  BridgeSocket(SockJSSocket socket, io.vertx.core.Future<Optional<Caller>> session) {
    this.socket = socket;
    this.session = session;
  }

  /** True when the caller's credentials are not watched yet (each token is watched once). */
  boolean firstWatchOf(Caller caller) {
    return watchedTokens.add(caller.tokenId().orElse(caller.principalId()));
  }

  /** True when the socket is not counted against the caller's principal yet. */
  boolean firstHoldFor(Caller caller) {
    return heldFor.add(caller.principalId());
  }

  /** The principal refused to hold the socket: it is not counted against it. */
  void forgetHold(Caller caller) {
    heldFor.remove(caller.principalId());
  }

  /** True once some caller authenticated on the socket (and was admitted). */
  boolean holdsAny() {
    return !heldFor.isEmpty();
  }

  /** Runs {@code release} when the socket closes; at once if it already has, so that nothing is held for a socket gone. */
  void onRelease(Runnable release) {
    if (released) {
      release.run();
    } else {
      releases.add(release);
    }
  }

  void releaseAll() {
    released = true;
    releases.forEach(Runnable::run);
    releases.clear();
  }
}
