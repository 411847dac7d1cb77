package dev.conclave.e2e.bench;

import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import dev.conclave.platform.testing.Await;

/** RetentionBench's SQL (retention_bench.sql), run from the benchmark's thread and awaited. */
final class BenchDb {

  static final SqlFile SQL = SqlFile.of(BenchDb.class, "retention_bench.sql");
  private static final Duration LIMIT = Duration.ofMinutes(30);

  private BenchDb() {
  }

  /** Runs a named statement with {@code params} (name, value, name, value…) and waits for its rows. */
  static List<Row> rows(SqlClient client, String name, Object... params) {
    NamedStatement statement = SQL.get(name);
    Future<RowSet<Row>> done;
    if (params.length == 0) {
      done = statement.execute(client);
    } else {
      NamedStatement.Binding binding = statement.with((String) params[0], params[1]);
      for (int i = 2; i < params.length; i += 2) {
        binding = binding.with((String) params[i], params[i + 1]);
      }
      done = binding.execute(client);
    }
    List<Row> rows = new ArrayList<>();
    Await.await(done, LIMIT, name).forEach(rows::add);
    return rows;
  }

  static Row row(SqlClient client, String name, Object... params) {
    return rows(client, name, params).get(0);
  }

  /**
   * A maintenance command (VACUUM, CHECKPOINT: no parameters, not allowed in a transaction block),
   * sent as a simple query.
   */
  static void command(SqlClient client, String command) {
    Await.await(client.query(command).execute(), LIMIT, command);
  }
}
