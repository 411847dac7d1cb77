package dev.conclave.gateway.commit;

import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One unit's view of the shared transaction it runs in: the SQL client for its own statements, and
 * the ledger append whose entries {@link LedgerWriter} publishes once the transaction has committed.
 */
public final class WriteTx {

  /** Entries appended to one conversation, from {@code firstSeq} on. */
  record Appended(String conversationKey, long firstSeq, List<LedgerEntry> entries) {
  }

  private final TransactionSql sql;
  private final LedgerStore ledger;
  private final List<Appended> appended = new ArrayList<>();

  WriteTx(TransactionSql sql, LedgerStore ledger) {
    this.sql = sql;
    this.ledger = ledger;
  }

  /** The transaction's end is being sent: a statement of this unit's after it is refused. */
  void seal() {
    sql.seal();
  }

  /** The transaction, for the unit's other statements (until its end is sent). */
  public SqlClient sql() {
    return sql;
  }

  /** Appends entries to a conversation in order; returns the first sequence number. Published after commit. */
  public Future<Long> append(String conversationKey, String agentId, List<LedgerEntry> entries) {
    return ledger.append(sql, conversationKey, agentId, entries).map(firstSeq -> {
      appended(conversationKey, firstSeq, entries);
      return firstSeq;
    });
  }

  /**
   * Queues a new request with its inbound entry, and with {@code dispatch} dispatches it at once when
   * the agent is idle ({@link LedgerStore#enqueueWithInbound}); nothing for a repeated idempotency
   * key. Published after commit, when appended.
   */
  public Future<LedgerStore.Enqueued> enqueueWithInbound(String conversationKey, String agentId, LedgerEntry inbound,
                                                         LedgerStore.NewRequest request, Optional<LedgerStore.DispatchTo> dispatch,
                                                         boolean admin) {
    return ledger.enqueueWithInbound(sql, conversationKey, agentId, inbound, request, dispatch, admin).map(enqueued -> {
      enqueued.firstSeq().ifPresent(s -> appended(conversationKey, s, List.of(inbound)));
      return enqueued;
    });
  }

  /**
   * Appends an agent's entries for its request in flight, with the request's checks and bookkeeping
   * in the same statement ({@link LedgerStore#appendForRequest}). Published after commit, when appended.
   */
  public Future<LedgerStore.RequestAppend> appendForRequest(String conversationKey, String agentId, List<LedgerEntry> entries, UUID requestId,
                                                            long epoch, long expectedStored, int counted, Optional<RequestState> end) {
    return ledger.appendForRequest(sql, conversationKey, agentId, entries, requestId, epoch, expectedStored, counted, end).map(result -> {
      result.firstSeq().ifPresent(firstSeq -> appended(conversationKey, firstSeq, entries));
      return result;
    });
  }

  private void appended(String conversationKey, long firstSeq, List<LedgerEntry> entries) {
    synchronized (appended) {
      appended.add(new Appended(conversationKey, firstSeq, List.copyOf(entries)));
    }
  }

  List<Appended> appended() {
    synchronized (appended) {
      return List.copyOf(appended);
    }
  }
}
