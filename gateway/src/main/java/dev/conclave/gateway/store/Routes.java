package dev.conclave.gateway.store;

import java.util.Optional;

/**
 * The parts of a conversation key that its route is found by: a conversation goes to the agent bound
 * to {@code <frontend>:<channel_id>}, else to the known agent whose id is the key. The route lookup
 * ({@code bindings.sql}'s Route) and the statement that accepts a client's message ({@code mailbox.sql}'s
 * EnqueueWithInbound, which refuses a message whose route no longer holds) both take them from here.
 */
public final class Routes {

  private Routes() {
  }

  /** The frontend of a key {@code <frontend>:<channel_id>}; empty for a key without one (an agent id). */
  public static Optional<String> frontend(String conversationKey) {
    int colon = conversationKey.indexOf(':');
    return colon > 0 ? Optional.of(conversationKey.substring(0, colon)) : Optional.empty();
  }

  /** The channel of a key {@code <frontend>:<channel_id>}; empty for a key without a frontend. */
  public static Optional<String> channel(String conversationKey) {
    int colon = conversationKey.indexOf(':');
    return colon > 0 ? Optional.of(conversationKey.substring(colon + 1)) : Optional.empty();
  }
}
