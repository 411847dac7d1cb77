package dev.conclave.platform.bridge;

import dev.conclave.platform.access.AccessTarget;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;

import java.util.Optional;

/**
 * Addresses a role lets dashboards subscribe to over the event-bus bridge, with who may. Roles
 * contribute topics through their edge contribution; the bridge refuses every address no topic owns.
 * A topic may feed its addresses only while someone here listens ({@link #subscribed}).
 */
public interface BridgeTopic {

  /** True when this topic decides about {@code address}. */
  boolean owns(String address);

  /** Succeeds when {@code caller} may follow {@code address}; fails with the reason otherwise. */
  Future<Void> authorize(Caller caller, String address);

  /**
   * A socket on this edge instance is about to listen to {@code address}; completes once what feeds
   * the address here is live. Each call is matched by one {@link #unsubscribed}.
   */
  default Future<Void> subscribed(String address) {
    return Future.succeededFuture();
  }

  default void unsubscribed(String address) {
  }

  /**
   * What a subscription to {@code address} keeps needing while it lasts, as {@link #authorize}
   * checked it when it began: the bridge re-checks it whenever access changes (LiveAccess) and ends
   * the subscription when it is gone. Empty: nothing beyond the caller's credentials.
   */
  default Optional<AccessTarget> target(String address) {
    return Optional.empty();
  }

  /**
   * Whether one message on {@code address} may reach {@code caller}, who subscribed to it; for
   * addresses whose messages are not all for everyone who may subscribe. The bridge keeps each
   * socket's messages in order whatever this takes.
   */
  default Future<Boolean> visible(Caller caller, String address, Object body) {
    return ALWAYS;
  }

  Future<Boolean> ALWAYS = Future.succeededFuture(true);

  /** Decides per message; see {@link #visible}. */
  interface Visibility {
    Future<Boolean> visible(Caller caller, Object body);
  }

  /** One fixed address that every caller of {@code audience} may follow. */
  static BridgeTopic exact(String address, Audience audience) {
    return exact(address, audience, (caller, body) -> ALWAYS);
  }

  /** One fixed address that callers of {@code audience} may follow, each getting the messages {@code visibility} lets through. */
  static BridgeTopic exact(String address, Audience audience, Visibility visibility) {
    return new BridgeTopic() {
      @Override
      public Future<Boolean> visible(Caller caller, String candidate, Object body) {
        return visibility.visible(caller, body);
      }

      @Override
      public boolean owns(String candidate) {
        return address.equals(candidate);
      }

      @Override
      public Optional<AccessTarget> target(String candidate) {
        return Optional.of(AccessTarget.of(audience, "'" + address + "'"));
      }

      @Override
      public Future<Void> authorize(Caller caller, String candidate) {
        try {
          audience.check(caller, "subscribing to " + address);
          return Future.succeededFuture();
        } catch (RuntimeException e) {
          return Future.failedFuture(e);
        }
      }
    };
  }
}
