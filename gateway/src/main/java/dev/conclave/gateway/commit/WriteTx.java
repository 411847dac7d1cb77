package dev.conclave.gateway.commit;

import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

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
   * Runs a store's appending statement in this transaction ({@code statement}, given the transaction)
   * whose result names the first sequence number it appended ({@code firstSeq}: empty when it
   * appended nothing, say because its checks refused): what it appended is published after commit.
   * The caller names the store's statement itself, so nothing passes through here but the publishing.
   */
  public <T> Future<T> appending(String conversationKey, List<LedgerEntry> entries, Function<SqlClient, Future<T>> statement,
                                 Function<T, Optional<Long>> firstSeq) {
    return statement.apply(sql).map(result -> {
      firstSeq.apply(result).ifPresent(seq -> appended(conversationKey, seq, entries));
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
