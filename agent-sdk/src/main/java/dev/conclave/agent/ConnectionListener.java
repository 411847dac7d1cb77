package dev.conclave.agent;

import java.time.Duration;

/**
 * Observes the client's connection lifecycle. Every method runs on the client's Vert.x context
 * and must not block.
 */
public interface ConnectionListener {

  /** The gateway welcomed the agent: the first registration or a re-registration after a reconnect. */
  default void onRegistered(Session session, boolean reconnect) {
  }

  /** A registered session ended. */
  default void onDisconnected(Disconnect disconnect) {
  }

  /**
   * The next connection attempt is scheduled.
   *
   * @param attempt 0 for the first attempt after a session ended, counting up with failures
   * @param lastFailure why the previous attempt or session failed; null after a clean end
   */
  default void onRetryScheduled(Endpoint next, Duration delay, int attempt, Throwable lastFailure) {
  }

  /** The client stopped for good: {@link dev.conclave.agent.client.AgentClient#stop()}, a permanent rejection, or a Shutdown under {@link ShutdownPolicy#STOP}. */
  default void onStopped(Throwable cause) {
  }
}
