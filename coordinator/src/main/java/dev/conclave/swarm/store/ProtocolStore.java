package dev.conclave.swarm.store;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;

/** Runs protocol requests through swarm.dispatch_batch: one statement, one transaction, one result each. */
public final class ProtocolStore {

  /** The results of a batch, in request order, and the events its requests produced (to publish). */
  public record Batch(JsonArray results, JsonArray events) {
  }

  private final Pool pool;

  public ProtocolStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * @param items [{request, principal, options}, ...]
   * @return [{ok}|{error}, ...] in the same order, and the events, captured rather than put in the outbox
   */
  public Future<Batch> dispatchBatch(JsonArray items, Instant now) {
    return pool.preparedQuery("SELECT swarm.dispatch_batch($1::jsonb, $2, true) AS batch")
      .execute(Tuple.of(items, SqlTime.of(now)))
      .map(rows -> {
        JsonObject batch = rows.iterator().next().getJsonObject("batch");
        return new Batch(batch.getJsonArray("results"), batch.getJsonArray("events"));
      })
      .recover(err -> Future.failedFuture(SwarmErrors.fromSql(err)));
  }
}
