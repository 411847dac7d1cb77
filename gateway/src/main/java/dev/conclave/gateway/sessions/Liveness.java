package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Notices dead agents: a stream silent past the heartbeat timeout is closed, and HTTP/2 PINGs on
 * the connection detect a vanished peer even between heartbeats. One periodic timer per session
 * does both (an idle node holds one per connected agent, so each counts): every tick checks the
 * silence, sends a PING each interval, and fails the session when PINGs have gone unanswered for two
 * intervals with nothing else from the agent meanwhile.
 *
 * <p>The PINGs overlap (up to {@value #MAX_UNANSWERED} unanswered), and any answer, like any message
 * from the agent, proves the connection and starts the wait over. So an answer lost on the way costs
 * nothing: Vert.x matches answers to PINGs in order, ignoring their payload, and the next answer, an
 * interval later, completes the PING whose answer was lost. A PING whose write fails counts as
 * answered; a connection that is really gone ends the session through its close.
 */
final class Liveness {

  private static final Logger LOG = LoggerFactory.getLogger(Liveness.class);
  /** PINGs in flight at most: past that, the tick waits for an answer or the deadline. */
  static final int MAX_UNANSWERED = 3;

  private final SessionView session;
  private final AgentLink link;
  /** Ends the session: its agent is gone. */
  private final Consumer<ConclaveException> dead;
  private final Vertx vertx;
  private final long timeoutNanos;
  private final long pingNanos;
  private long lastActivity = System.nanoTime();
  /** When the last PING was sent. */
  private long lastPing;
  /** PINGs sent and not answered yet (one whose answer was lost stays counted). */
  private int unanswered;
  /** Since when PINGs have waited with no answer: the first one's sending, or the last answer. */
  private long waitingSince;
  private long timer = -1;

  Liveness(SessionView session, AgentLink link, Consumer<ConclaveException> dead, Vertx vertx, Duration heartbeatTimeout,
           Duration pingInterval) {
    this.session = session;
    this.link = link;
    this.dead = dead;
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
      dead.accept(GatewayErrors.idleTimeout(timeoutNanos / 1_000_000_000));
      return;
    }
    if (pingNanos <= 0) {
      return;
    }
    // the answer may queue behind a busy connection's frames: allow two intervals before giving up
    long patience = 2 * pingNanos;
    if (unanswered > 0 && now - waitingSince > patience && now - lastActivity > patience) {
      dead.accept(GatewayErrors.agentUnreachable(patience / 1_000_000_000));
    } else if (unanswered < MAX_UNANSWERED && now - lastPing >= pingNanos) {
      ping(now);
    }
  }

  private void ping(long now) {
    HttpConnection connection = link.connection();
    if (connection == null) {
      return;
    }
    lastPing = now;
    if (unanswered++ == 0) {
      waitingSince = now;
    }
    // a PING answer proves the connection, not the agent: it does not count as activity
    connection.ping(Buffer.buffer(new byte[8])).onComplete(ar -> {
      if (ar.failed()) {
        LOG.debug("agent {}: a PING could not be written: {}", session.agentId(), ar.cause().toString());
      }
      unanswered = Math.max(0, unanswered - 1);
      waitingSince = System.nanoTime();
    });
  }

  void stop() {
    vertx.cancelTimer(timer);
  }
}
