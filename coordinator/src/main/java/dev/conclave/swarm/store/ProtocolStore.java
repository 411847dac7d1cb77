package dev.conclave.swarm.store;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Runs protocol requests through swarm.dispatch_batch: one statement, one transaction, one result each. */
public final class ProtocolStore {

  /** The results of a batch, in request order, and the events its requests produced (to publish). */
  public record Batch(List<Result> results, JsonArray events) {
  }

  /**
   * One request's result: the response as PostgreSQL wrote it ({@code ok}, JSON text made compact,
   * passed on to the caller without being parsed and written again), or the error ({@code error}).
   */
  public record Result(String ok, JsonObject error) {
  }

  private static final SqlFile SQL = SqlFile.of(ProtocolStore.class, "protocol.sql");

  /** The batch statement (protocol.sql's Dispatch): $1 the items, $2 the time. */
  public static final String DISPATCH = SQL.get("Dispatch").sql();

  private final Pool pool;

  public ProtocolStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * @param items [{request, principal, options}, ...]
   * @return one result per item, in the same order, and the events, captured rather than put in the outbox
   */
  public Future<Batch> dispatchBatch(JsonArray items, Instant now) {
    return SQL.get("Dispatch").with("items", items).with("now", SqlTime.of(now)).execute(pool)
      .map(rows -> {
        Row row = rows.iterator().next();
        String[] oks = row.getArrayOfStrings("oks");
        JsonArray errors = (JsonArray) row.getValue("errors");
        List<Result> results = new ArrayList<>(oks.length);
        for (int i = 0; i < oks.length; i++) {
          results.add(new Result(JsonText.compact(oks[i]), errors.getJsonObject(i)));
        }
        return new Batch(results, (JsonArray) row.getValue("events"));
      })
      .recover(err -> Future.failedFuture(SwarmErrors.fromSql(err)));
  }
}
