package dev.conclave.swarm.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.time.Instant;

/** The background jobs' statements; each is one set-based statement that skips rows other nodes hold. */
public final class JobStore {

  private final Pool pool;

  public JobStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Integer> releaseDueRetries(Instant now, int limit) {
    return count("SELECT swarm.release_due_retries($1, $2)", Tuple.of(SqlTime.of(now), limit));
  }

  public Future<Integer> reapStaleAgents(Instant now, int limit) {
    return count("SELECT swarm.reap_stale_agents($1, $2)", Tuple.of(SqlTime.of(now), limit));
  }

  public Future<Integer> sweepExpiredLeases(Instant now, int limit) {
    return count("SELECT swarm.sweep_expired_leases($1, $2)", Tuple.of(SqlTime.of(now), limit));
  }

  public Future<Integer> expireMessages(Instant now, Duration retention, int limit) {
    return count("SELECT swarm.expire_messages($1, $2 * interval '1 second', $3)",
      Tuple.of(SqlTime.of(now), retention.toSeconds(), limit));
  }

  public Future<Integer> housekeeping(Instant now) {
    return count("SELECT swarm.sweep_housekeeping($1)", Tuple.of(SqlTime.of(now)));
  }

  private Future<Integer> count(String sql, Tuple args) {
    return pool.preparedQuery(sql).execute(args).map(rows -> rows.iterator().next().getInteger(0));
  }
}
