package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Notices dead agents: a stream silent past the heartbeat timeout is closed, and HTTP/2 PINGs on
 * the connection detect a vanished peer even between heartbeats. One periodic timer per session
 * does both (an idle node holds one per connected agent, so each counts): every tick checks the
 * silence, sends the next PING when its interval has passed, and fails the session when the PING
 * before it went unanswered for two intervals and nothing else came from the agent meanwhile.
 *
 * <p>A message from the agent after the PING proves the connection as well as its answer does, so
 * it ends the wait too. That keeps a lost PING answer from dropping an agent that is plainly
 * talking: Vert.x matches answers to PINGs in order, ignoring their payload, and registers a PING's
 * answer only once its write completed, so one answer that goes astray would otherwise cost a live
 * agent its session. A PING whose write fails ends the wait too; a connection that is really gone
 * ends the session through its close.
 */
final class Liveness {

  private static final Logger LOG = LoggerFactory.getLogger(Liveness.class);

  private final AgentSession session;
  private final Vertx vertx;
  private final long timeoutNanos;
  private final long pingNanos;
  private long lastActivity = System.nanoTime();
  /** When the last PING was sent. */
  private long lastPing;
  /** The last PING has had no answer yet. */
  private boolean awaitingPong;
  private long timer = -1;

  Liveness(AgentSession session, Vertx vertx, Duration heartbeatTimeout, Duration pingInterval) {
    this.session = session;
    this.vertx = vertx;
    this.timeoutNanos = heartbeatTimeout.toNanos();
    this.pingNanos = pingInterval.toNanos();
  }

  void touch() {
    lastActivity = System.nanoTime();
  }

  void start() {
    lastPing = System.nanoTime();
    long timeoutMs = timeoutNanos / 1_000_000;
    long tickMs = Math.max(250, Math.min(timeoutMs / 3, 10_000));
    if (pingNanos > 0) {
      // a tick at least twice per PING interval: an unanswered PING is noticed within half an interval of its deadline
      tickMs = Math.max(250, Math.min(tickMs, pingNanos / 2_000_000));
    }
    timer = vertx.setPeriodic(tickMs, t -> tick(System.nanoTime()));
  }

  private void tick(long now) {
    if (now - lastActivity > timeoutNanos) {
      session.fail(GatewayErrors.idleTimeout(timeoutNanos / 1_000_000_000));
      return;
    }
    if (pingNanos <= 0) {
      return;
    }
    // the answer may queue behind a busy connection's frames: allow two intervals before giving up
    long patience = 2 * pingNanos;
    if (awaitingPong && lastActivity - lastPing > 0) {
      awaitingPong = false;
    }
    if (awaitingPong && now - lastPing > patience) {
      session.fail(GatewayErrors.agentUnreachable(patience / 1_000_000_000));
    } else if (!awaitingPong && now - lastPing >= pingNanos) {
      ping(now);
    }
  }

  private void ping(long now) {
    HttpConnection connection = session.request().connection();
    if (connection == null) {
      return;
    }
    lastPing = now;
    awaitingPong = true;
    // a PING answer proves the connection, not the agent: it does not count as activity
    connection.ping(Buffer.buffer(new byte[8])).onComplete(ar -> {
      if (ar.failed()) {
        LOG.debug("agent {}: a PING could not be written: {}", session.agentId(), ar.cause().toString());
      }
      awaitingPong = false;
    });
  }

  void stop() {
    vertx.cancelTimer(timer);
  }
}
