package dev.conclave.gateway.sessions;

import dev.conclave.gateway.streaming.Followers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Drains this node's agent sessions and client followers when the node stops: new agent streams are
 * refused, followers are closed, every session is asked to finish and reconnect elsewhere, and those
 * still open when the grace period (less a second for the rest of the shutdown) runs out are closed.
 */
public final class SessionDrain {

  private static final Logger LOG = LoggerFactory.getLogger(SessionDrain.class);

  private final Vertx vertx;
  private final String nodeId;
  private final LocalSessions sessions;
  private final Followers followers;

  public SessionDrain(Vertx vertx, String nodeId, LocalSessions sessions, Followers followers) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.sessions = sessions;
    this.followers = followers;
  }

  /** Completes when no session is left, or when {@code grace} less a second has passed. */
  public Future<Void> drain(Duration grace) {
    LOG.info("role gateway: draining agents={} subscribers={}", sessions.size(), followers.size());
    sessions.startDraining();
    followers.closeAll();
    String reason = "node " + nodeId + " is shutting down; reconnect to another node";
    Future.join(sessions.all().stream().map(s -> s.drain(reason)).toList());
    Promise<Void> drained = Promise.promise();
    long deadline = System.nanoTime() + Math.max(0, grace.toMillis() - 1000) * 1_000_000;
    check(drained, deadline);
    return drained.future();
  }

  /**
   * Ends the drain when no session is left or the deadline passed, else looks again in 100 ms. One-shot
   * timers, never a periodic one cancelled from its own handler: Vert.x's cancel could throw there
   * (its timer future not yet set), which left the drain unfinished for the whole grace period.
   */
  private void check(Promise<Void> drained, long deadline) {
    if (sessions.size() == 0 || System.nanoTime() > deadline) {
      try {
        sessions.all().forEach(s -> s.forceClose("node stopping"));
      } finally {
        drained.tryComplete();
      }
      return;
    }
    vertx.setTimer(100, id -> check(drained, deadline));
  }
}
