package dev.conclave.gateway.store;

import dev.conclave.gateway.model.LifecycleState;

import java.util.Optional;

/**
 * Where a conversation goes, as SQL: the agent bound to {@code <frontend>:<channel_id>}, else the
 * known agent whose id is the key. The route lookup ({@link BindingStore#route}) and the statement
 * that accepts a client's message ({@link LedgerStore#enqueueWithInbound}, which refuses a message
 * whose route no longer holds) both resolve it from here.
 */
final class Routes {

  private Routes() {
  }

  /** The frontend of a key {@code <frontend>:<channel_id>}; empty for a key without one (an agent id). */
  static Optional<String> frontend(String conversationKey) {
    int colon = conversationKey.indexOf(':');
    return colon > 0 ? Optional.of(conversationKey.substring(0, colon)) : Optional.empty();
  }

  /** The channel of a key {@code <frontend>:<channel_id>}; empty for a key without a frontend. */
  static Optional<String> channel(String conversationKey) {
    int colon = conversationKey.indexOf(':');
    return colon > 0 ? Optional.of(conversationKey.substring(colon + 1)) : Optional.empty();
  }

  /**
   * SQL for the agent id conversation {@code key} routes to (null: none), given the SQL expressions
   * of the key and of its {@link #frontend} and {@link #channel}.
   */
  static String agentOf(String key, String frontend, String channel) {
    return "COALESCE((SELECT agent_id FROM gateway.bindings WHERE frontend = " + frontend + " AND channel_id = " + channel + "),"
      + " (SELECT agent_id FROM gateway.agents WHERE agent_id = " + key + "))";
  }

  /**
   * SQL that is true when agent {@code agent} (an SQL expression) is retired; false otherwise, also
   * for an agent that never registered (a binding may name one: its messages wait for it).
   */
  static String retired(String agent) {
    return "COALESCE((SELECT lifecycle = '" + LifecycleState.RETIRED.id() + "' FROM gateway.agents WHERE agent_id = " + agent + "), false)";
  }
}
