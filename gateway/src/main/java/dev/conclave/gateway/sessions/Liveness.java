package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;

/**
 * Notices dead agents: a stream silent past the heartbeat timeout is closed, and HTTP/2 PINGs on
 * the connection detect a vanished peer even between heartbeats.
 */
final class Liveness {

  private final AgentSession session;
  private final SessionServices services;
  private long lastActivity = System.nanoTime();
  private long checkTimer = -1;
  private long pingTimer = -1;

  Liveness(AgentSession session, SessionServices services) {
    this.session = session;
    this.services = services;
  }

  void touch() {
    lastActivity = System.nanoTime();
  }

  void start() {
    long timeoutMs = services.settings().heartbeatTimeout().toMillis();
    checkTimer = services.vertx().setPeriodic(Math.max(250, Math.min(timeoutMs / 3, 10_000)), t -> {
      long silentMs = (System.nanoTime() - lastActivity) / 1_000_000;
      if (silentMs > timeoutMs) {
        session.fail(GatewayErrors.idleTimeout(timeoutMs / 1000));
      }
    });
    long pingMs = services.settings().pingInterval().toMillis();
    if (pingMs > 0) {
      pingTimer = services.vertx().setPeriodic(pingMs, t -> ping(pingMs));
    }
  }

  private void ping(long pingMs) {
    HttpConnection connection = session.request().connection();
    if (connection == null) {
      return;
    }
    // the answer may queue behind a busy connection's frames: allow two intervals before giving up
    long patience = 2 * pingMs;
    long deadline = services.vertx().setTimer(patience, t -> session.fail(GatewayErrors.agentUnreachable(patience / 1000)));
    // a PING answer proves the connection, not the agent: it does not count as activity
    connection.ping(Buffer.buffer(new byte[8])).onComplete(ar -> services.vertx().cancelTimer(deadline));
  }

  void stop() {
    services.vertx().cancelTimer(checkTimer);
    services.vertx().cancelTimer(pingTimer);
  }
}
