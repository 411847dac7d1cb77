package dev.conclave.gateway.commit;

import io.vertx.core.Future;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;

/**
 * A unit's SQL client in a shared transaction: the writer's connection, until the writer has sent
 * the transaction's end. A statement after that would run outside the transaction, so it is refused
 * at once instead; so is a second statement of a unit written as one (the writer may have sent the
 * transaction's end right behind its first).
 */
final class TransactionSql implements SqlClient {

  private final SqlConnection conn;
  private final boolean oneStatement;
  private volatile boolean sealed;

  /** @param oneStatement the unit declared one statement: a second one is refused too */
  TransactionSql(SqlConnection conn, boolean oneStatement) {
    this.conn = conn;
    this.oneStatement = oneStatement;
  }

  /** The transaction's end is being sent: no statement may follow. */
  void seal() {
    sealed = true;
  }

  @Override
  public Query<RowSet<Row>> query(String sql) {
    check();
    return conn.query(sql);
  }

  @Override
  public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
    check();
    return conn.preparedQuery(sql);
  }

  @Override
  public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
    check();
    return conn.preparedQuery(sql, options);
  }

  /** The connection is the writer's to close. */
  @Override
  public Future<Void> close() {
    return Future.failedFuture(new IllegalStateException("a unit does not close the ledger writer's connection"));
  }

  private void check() {
    if (sealed) {
      throw new IllegalStateException(oneStatement
        ? "a second statement of a unit written as one statement: it may run outside any transaction"
        : "a statement after its transaction's end was sent: a unit must have sent all its statements before it completes");
    }
    sealed = oneStatement;
  }
}
