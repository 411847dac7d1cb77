package dev.conclave.gateway.commit;

import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.List;

/**
 * One unit's view of the shared transaction it runs in: the SQL client for its own statements, and
 * the ledger append whose entries {@link LedgerWriter} publishes once the transaction has committed.
 */
public final class WriteTx {

  /** Entries appended to one conversation, from {@code firstSeq} on. */
  record Appended(String conversationKey, long firstSeq, List<LedgerEntry> entries) {
  }

  private final SqlClient sql;
  private final LedgerStore ledger;
  private final List<Appended> appended = new ArrayList<>();

  WriteTx(SqlClient sql, LedgerStore ledger) {
    this.sql = sql;
    this.ledger = ledger;
  }

  /** The transaction, for the unit's other statements. */
  public SqlClient sql() {
    return sql;
  }

  /** Appends entries to a conversation in order; returns the first sequence number. Published after commit. */
  public Future<Long> append(String conversationKey, String agentId, List<LedgerEntry> entries) {
    return ledger.append(sql, conversationKey, agentId, entries).map(firstSeq -> {
      synchronized (appended) {
        appended.add(new Appended(conversationKey, firstSeq, List.copyOf(entries)));
      }
      return firstSeq;
    });
  }

  List<Appended> appended() {
    synchronized (appended) {
      return List.copyOf(appended);
    }
  }
}
