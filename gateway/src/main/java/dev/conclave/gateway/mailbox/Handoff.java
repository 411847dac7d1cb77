package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;

import java.util.Optional;

/**
 * Writes a client's message into the agent's mailbox and, when the agent's session is on this node
 * with nothing in flight and nothing queued, hands the request to it in the same statement: one
 * commit and no wake-up instead of two commits and a wake-up between them.
 */
public interface Handoff {

  /**
   * A client's message for an agent: its request, and the inbound entry for its conversation;
   * {@code admin} when the sender may act on every agent (otherwise the write checks its access).
   */
  record Message(String conversationKey, LedgerEntry inbound, LedgerStore.NewRequest request, boolean admin) {
  }

  /**
   * Whether the conversation still routed to the agent and whether the sender may act on it (unless
   * both, nothing was written), the inbound entry's sequence number (empty when nothing was written:
   * also for a repeated idempotency key), and whether the request was handed to the agent in that statement (then nobody needs to
   * wake it; otherwise the caller wakes it as usual, which also covers a session that was just
   * replaced by a newer one, and older requests queued before this one).
   */
  record Written(boolean routed, boolean allowed, Optional<Long> firstSeq, boolean dispatched) {

    /** What the message's statement did. */
    public static Written of(LedgerStore.Enqueued enqueued) {
      return new Written(enqueued.routed(), enqueued.allowed(), enqueued.firstSeq(), enqueued.dispatched().isPresent());
    }
  }

  /**
   * Writes {@code message} for {@code agentId} through the ledger writer, in the agent's lane, if its
   * conversation still routes to that agent and its sender may act on it.
   */
  Future<Written> write(String agentId, Message message);
}
