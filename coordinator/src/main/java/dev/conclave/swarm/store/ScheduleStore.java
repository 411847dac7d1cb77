package dev.conclave.swarm.store;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;

/** Schedules (periodic tasks) in PostgreSQL: swarm.schedules, through schedules.sql. */
public final class ScheduleStore {

  /** A schedule to create; {@code nextRunAt} its first slot. */
  public record Draft(String name, String cron, String every, String timezone, JsonObject task, Instant nextRunAt) {
  }

  /** A due schedule as a tick locked it. */
  public record Due(String name, String cron, String every, String timezone, JsonObject task, Instant nextRunAt) {
  }

  /** A fired slot: the task that stands for it, and whether it existed already (a replay). */
  public record Fired(String taskId, boolean existing) {
  }

  private static final SqlFile SQL = SqlFile.of(ScheduleStore.class, "schedules.sql");

  private final Pool pool;

  public ScheduleStore(Pool pool) {
    this.pool = pool;
  }

  /** The schedule as created, or empty when the name is in use. */
  public Future<Optional<JsonObject>> create(Draft d, Instant now) {
    return SQL.get("Create").with("name", d.name()).with("cron", d.cron()).with("every", d.every()).with("timezone", d.timezone())
      .with("task", d.task()).with("next_run_at", SqlTime.of(d.nextRunAt())).with("now", SqlTime.of(now)).execute(pool)
      .map(ScheduleStore::first);
  }

  public Future<Optional<JsonObject>> get(String name) {
    return SQL.get("Get").with("name", name).execute(pool).map(ScheduleStore::first);
  }

  public Future<JsonArray> list(int limit) {
    return SQL.get("List").with("limit", limit).execute(pool).map(rows -> {
      JsonArray out = new JsonArray();
      rows.forEach(r -> out.add(r.getJsonObject("schedule")));
      return out;
    });
  }

  /** The schedule as it was, or empty when there was none. */
  public Future<Optional<JsonObject>> delete(String name) {
    return SQL.get("Delete").with("name", name).execute(pool).map(ScheduleStore::first);
  }

  /**
   * Runs {@code work} on the due schedule it locks, in one transaction whose every statement stops
   * after {@code bound}; empty when no schedule is due (or every due one is held by another node).
   */
  public <T> Future<Optional<T>> withDue(Instant now, Duration bound, BiFunction<SqlConnection, Due, Future<T>> work) {
    return pool.withTransaction(conn -> SQL.get("Bound").with("millis", String.valueOf(bound.toMillis())).execute(conn)
      .compose(ignored -> SQL.get("Due").with("now", SqlTime.of(now)).execute(conn))
      .compose(rows -> {
        if (rows.size() == 0) {
          return Future.succeededFuture(Optional.<T>empty());
        }
        Row r = rows.iterator().next();
        Due due = new Due(r.getString("name"), r.getString("cron"), r.getString("every"), r.getString("timezone"),
          r.getJsonObject("task"), r.getOffsetDateTime("next_run_at").toInstant());
        return work.apply(conn, due).map(Optional::of);
      }));
  }

  /** Makes the task of {@code slot} and moves the schedule on; in the transaction of {@link #withDue}. */
  public Future<Fired> fire(SqlConnection conn, Due due, Instant slot, long missed, Instant nextRunAt, Instant now,
                            int defaultMaxRetries) {
    return SQL.get("Fire").with("task", due.task()).with("unique_key", uniqueKey(due.name(), slot)).with("now", SqlTime.of(now))
      .with("default_max_retries", defaultMaxRetries).with("next_run_at", SqlTime.of(nextRunAt)).with("slot", SqlTime.of(slot))
      .with("missed", missed).with("name", due.name()).execute(conn)
      .map(rows -> {
        Row r = rows.iterator().next();
        return new Fired(r.getString("task_id"), r.getBoolean("existing"));
      })
      .recover(SwarmStores::fail);
  }

  /** Moves the schedule on without a task (see Walk); {@code client} a transaction's connection or the pool. */
  public Future<Void> walk(SqlClient client, String name, Instant expected, Instant nextRunAt, long missed, String error) {
    return SQL.get("Walk").with("name", name).with("expected", SqlTime.of(expected)).with("next_run_at", SqlTime.of(nextRunAt))
      .with("missed", missed).with("error", error).execute(client).mapEmpty();
  }

  /** Walk on the pool, for a schedule whose transaction failed. */
  public Future<Void> walk(String name, Instant expected, Instant nextRunAt, long missed, String error) {
    return walk(pool, name, expected, nextRunAt, missed, error);
  }

  /** The uniqueKey of a slot's task: one task per schedule and slot, whatever replays it. */
  public static String uniqueKey(String name, Instant slot) {
    return "schedule:" + name + ":" + slot;
  }

  private static Optional<JsonObject> first(io.vertx.sqlclient.RowSet<Row> rows) {
    return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getJsonObject("schedule"));
  }
}
