package dev.conclave.swarm.store;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;

/** Runs protocol requests through swarm.dispatch_batch: one statement, one transaction, one result each. */
public final class ProtocolStore {

  private final Pool pool;

  public ProtocolStore(Pool pool) {
    this.pool = pool;
  }

  /** @param items [{request, principal, options}, ...]; @return [{ok}|{error}, ...] in the same order */
  public Future<JsonArray> dispatchBatch(JsonArray items, Instant now) {
    return pool.preparedQuery("SELECT swarm.dispatch_batch($1::jsonb, $2) AS results")
      .execute(Tuple.of(items, SqlTime.of(now)))
      .map(rows -> rows.iterator().next().getJsonArray("results"))
      .recover(err -> Future.failedFuture(SwarmErrors.fromSql(err)));
  }
}
