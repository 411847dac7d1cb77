package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.commit.LedgerWriter;
import io.vertx.core.Future;

/**
 * Writes a client's message into the agent's mailbox and, when the agent's session is on this node
 * with nothing in flight, hands the agent its next request in the same transaction: one commit and
 * no wake-up instead of two commits and a wake-up between them.
 */
public interface Handoff {

  /**
   * The result of the mailbox write, and whether the agent was handed its next request in that
   * transaction (then nobody needs to wake it; otherwise the writer wakes it as usual, which also
   * covers a session that was just replaced by a newer one).
   */
  record Written<T>(T result, boolean dispatched) {
  }

  /**
   * Runs {@code accept} through the ledger writer, in the lane of {@code agentId}. {@code accept}
   * must send all its statements when it is run, without waiting for an answer first: the dispatch
   * is sent right behind them on the same connection, and must run after them to see the request.
   */
  <T> Future<Written<T>> write(String agentId, LedgerWriter.Unit<T> accept);
}
