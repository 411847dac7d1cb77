package dev.conclave.swarm.store;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.swarm.tasks.TaskBulk;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Task management in PostgreSQL: create (swarm.create_tasks), read, list, cancel, review, retry, bulk actions. */
public final class TaskStore {

  /** A page of the task list; null members do not filter. {@code after} is a previous page's cursor. */
  public record TaskQuery(List<String> statuses, List<String> priorities, List<String> types, String skill, String assignedAgent,
                          String branch, long after, int limit) {
  }

  private static final SqlFile SQL = SqlFile.of(TaskStore.class, "tasks.sql");

  private final Pool pool;

  public TaskStore(Pool pool) {
    this.pool = pool;
  }

  /** @param traceContext the W3C traceparent the tasks' attempts continue (empty: none) */
  public Future<JsonArray> create(JsonArray tasks, Instant now, int defaultMaxRetries, Optional<String> traceContext) {
    return SQL.get("Create").with("tasks", tasks).with("now", SqlTime.of(now)).with("default_max_retries", defaultMaxRetries)
      .with("trace_context", traceContext.orElse(null)).execute(pool)
      .map(rows -> rows.iterator().next().getJsonArray("tasks"))
      .recover(SwarmStores::fail);
  }

  public Future<Optional<JsonObject>> get(String id) {
    return SQL.get("Get").with("id", id).execute(pool)
      .map(rows -> rows.size() == 0 ? Optional.<JsonObject>empty() : Optional.of(rows.iterator().next().getJsonObject("task")));
  }

  /**
   * The task's history, oldest first: {@code [{"seq", "kind", "event", "at", "data"}]} for its own
   * events and the lease and message events that name it; empty when the task does not exist.
   */
  public Future<JsonArray> history(String id, int limit) {
    return SQL.get("History").with("id", id).with("limit", limit).execute(pool)
      .map(rows -> {
        JsonArray out = new JsonArray();
        rows.forEach(r -> out.add(r.getJsonObject("entry")));
        return out;
      });
  }

  /** {tasks: [...], nextCursor: "<seq>" | absent} in creation order. */
  public Future<JsonObject> list(TaskQuery q) {
    return SQL.get("List").with("statuses", array(q.statuses())).with("priorities", array(q.priorities())).with("types", array(q.types()))
      .with("skill", q.skill()).with("assigned_agent", q.assignedAgent()).with("branch", q.branch()).with("after", q.after()).with("limit", q.limit() + 1)
      .execute(pool)
      .map(rows -> {
        JsonArray tasks = new JsonArray();
        long last = -1;
        for (Row row : rows) {
          if (tasks.size() == q.limit()) {
            break;
          }
          tasks.add(row.getJsonObject("task"));
          last = row.getLong("seq");
        }
        JsonObject page = new JsonObject().put("tasks", tasks);
        if (rows.size() > q.limit()) {
          page.put("nextCursor", String.valueOf(last));
        }
        return page;
      });
  }

  public Future<JsonObject> cancel(String id, String reason, Instant now) {
    return pool.preparedQuery("SELECT swarm.cancel_task($1, $2, $3) AS task")
      .execute(Tuple.of(id, reason, SqlTime.of(now)))
      .map(rows -> rows.iterator().next().getJsonObject("task"))
      .recover(SwarmStores::fail);
  }

  public Future<JsonObject> review(String id, String decision, String reason, Instant now) {
    return pool.preparedQuery("SELECT swarm.review_task($1, $2, $3, $4) AS task")
      .execute(Tuple.of(id, decision, reason, SqlTime.of(now)))
      .map(rows -> rows.iterator().next().getJsonObject("task"))
      .recover(SwarmStores::fail);
  }

  public Future<JsonObject> retry(String id, Instant now) {
    return SQL.get("Retry").with("id", id).with("now", SqlTime.of(now)).execute(pool)
      .map(rows -> rows.iterator().next().getJsonObject("task"))
      .recover(SwarmStores::fail);
  }

  /** {action, matched, changed}; at most {@code limit} matches, or nothing changes. */
  public Future<JsonObject> bulk(TaskBulk bulk, int limit, Instant now) {
    return SQL.get("Bulk").with("action", bulk.action()).with("filter", bulk.filter()).with("priority", bulk.priority())
      .with("reason", bulk.reason()).with("limit", limit).with("now", SqlTime.of(now)).execute(pool)
      .map(rows -> rows.iterator().next().getJsonObject("outcome"))
      .recover(SwarmStores::fail);
  }

  private static String[] array(List<String> values) {
    return values == null || values.isEmpty() ? null : values.toArray(new String[0]);
  }
}
