package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;

import java.time.Duration;

/**
 * Notices dead agents: a stream silent past the heartbeat timeout is closed, and HTTP/2 PINGs on
 * the connection detect a vanished peer even between heartbeats.
 */
final class Liveness {

  private final AgentSession session;
  private final Vertx vertx;
  private final Duration heartbeatTimeout;
  private final Duration pingInterval;
  private long lastActivity = System.nanoTime();
  private long checkTimer = -1;
  private long pingTimer = -1;

  Liveness(AgentSession session, Vertx vertx, Duration heartbeatTimeout, Duration pingInterval) {
    this.session = session;
    this.vertx = vertx;
    this.heartbeatTimeout = heartbeatTimeout;
    this.pingInterval = pingInterval;
  }

  void touch() {
    lastActivity = System.nanoTime();
  }

  void start() {
    long timeoutMs = heartbeatTimeout.toMillis();
    checkTimer = vertx.setPeriodic(Math.max(250, Math.min(timeoutMs / 3, 10_000)), t -> {
      long silentMs = (System.nanoTime() - lastActivity) / 1_000_000;
      if (silentMs > timeoutMs) {
        session.fail(GatewayErrors.idleTimeout(timeoutMs / 1000));
      }
    });
    long pingMs = pingInterval.toMillis();
    if (pingMs > 0) {
      pingTimer = vertx.setPeriodic(pingMs, t -> ping(pingMs));
    }
  }

  private void ping(long pingMs) {
    HttpConnection connection = session.request().connection();
    if (connection == null) {
      return;
    }
    // the answer may queue behind a busy connection's frames: allow two intervals before giving up
    long patience = 2 * pingMs;
    long deadline = vertx.setTimer(patience, t -> session.fail(GatewayErrors.agentUnreachable(patience / 1000)));
    // a PING answer proves the connection, not the agent: it does not count as activity
    connection.ping(Buffer.buffer(new byte[8])).onComplete(ar -> vertx.cancelTimer(deadline));
  }

  void stop() {
    vertx.cancelTimer(checkTimer);
    vertx.cancelTimer(pingTimer);
  }
}
