package dev.conclave.agent.pack;

import dev.conclave.agent.Endpoint;

import java.time.Duration;

/**
 * Observes a pack client's connection. Every method runs on the client's Vert.x event loop and must
 * not block; an exception thrown here is logged and otherwise ignored.
 */
public interface PackListener {

  /**
   * The gateway accepted the manifest: the first registration, or a re-registration after a
   * reconnect. {@link PackRegistration#rejectedTools()} names the tools the gateway did not take.
   */
  default void onRegistered(PackRegistration registration, boolean reconnect) {
  }

  /**
   * A registered stream ended.
   *
   * @param cause why; null when the gateway ended the stream with status OK
   * @param willReconnect false when the end is permanent (superseded, token refused, …)
   */
  default void onDisconnected(PackRegistration registration, Throwable cause, boolean willReconnect) {
  }

  /**
   * The next connection attempt is scheduled.
   *
   * @param attempt 0 for the first attempt after a registered stream ended, counting up with failures
   * @param lastFailure why the previous attempt or stream failed; null after a clean end
   */
  default void onRetryScheduled(Endpoint next, Duration delay, int attempt, Throwable lastFailure) {
  }

  /**
   * The same pack id registered again from elsewhere and the gateway handed the tools to it. The
   * client stops (and {@link #onStopped} follows) rather than fight over the registration.
   */
  default void onSuperseded(String message) {
  }

  /**
   * The client stopped for good. {@code cause} is null after {@link dev.conclave.agent.client.PackClient#close()}; otherwise
   * it is the permanent failure that stopped it (a {@link PackStatusException}). Not called for a
   * client closed before {@link dev.conclave.agent.client.PackClient#start()}.
   */
  default void onStopped(Throwable cause) {
  }
}
