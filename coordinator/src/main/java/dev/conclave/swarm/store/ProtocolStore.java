package dev.conclave.swarm.store;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

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

  /**
   * The batch's results split into their responses (text) and errors (JSON), with its events ($1 the
   * items, $2 the time). (From the function's parts: its results as one JSON object cost PostgreSQL two
   * copies of every answer.)
   */
  public static final String DISPATCH = "SELECT s.oks, s.errors, b.events FROM swarm.dispatch_batch_parts($1::jsonb, $2, true) b, "
    + "LATERAL (SELECT array_agg((r.x -> 'ok')::text ORDER BY r.o) AS oks, jsonb_agg(r.x -> 'error' ORDER BY r.o) AS errors "
    + "FROM unnest(b.results) WITH ORDINALITY r(x, o)) s";

  private final Pool pool;

  public ProtocolStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * @param items [{request, principal, options}, ...]
   * @return one result per item, in the same order, and the events, captured rather than put in the outbox
   */
  public Future<Batch> dispatchBatch(JsonArray items, Instant now) {
    return pool.preparedQuery(DISPATCH)
      .execute(Tuple.of(items, SqlTime.of(now)))
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
