package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Agents' todo lists ({@code packs.todos}). Every read and write names the owning agent in its
 * WHERE clause, so another agent's todo behaves exactly like a missing one.
 */
public final class TodoStore {

  private static final String COLUMNS = "id, agent_id, description, status, priority, notes, due_date, created_at, updated_at";

  private final Pool pool;

  public TodoStore(Pool pool) {
    this.pool = pool;
  }

  /** A todo; {@code dueDate} may be null. */
  public record Todo(UUID id, String agentId, String description, String status, String priority, String notes,
                     Instant dueDate, Instant createdAt, Instant updatedAt) {
  }

  /** Fields to change; null leaves a field as it is. */
  public record Changes(String status, String priority, String notes, Instant dueDate) {
  }

  /** Creates a pending todo. */
  public Future<UUID> add(String agentId, String description, String priority, String notes, Instant dueDate, Instant now) {
    UUID id = UUID.randomUUID();
    return pool.preparedQuery("INSERT INTO packs.todos (id, agent_id, description, status, priority, notes, due_date, created_at, updated_at)"
        + " VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $7)")
      .execute(Tuple.of(id, agentId, description, priority, notes, Rows.utc(dueDate), Rows.utc(now)))
      .map(r -> id);
  }

  /**
   * The agent's todos, newest first, optionally only those with this status and priority.
   *
   * @param status a status, or null for any
   * @param priority a priority, or null for any
   */
  public Future<List<Todo>> list(String agentId, String status, String priority, int limit) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.todos WHERE agent_id = $1"
        + " AND ($2::text IS NULL OR status = $2::text) AND ($3::text IS NULL OR priority = $3::text)"
        + " ORDER BY created_at DESC, seq DESC LIMIT $4")
      .execute(Tuple.of(agentId, status, priority, limit))
      .map(rows -> Rows.all(rows, TodoStore::map));
  }

  /** Applies the changes to the agent's todo; false when the agent has no todo with this id. */
  public Future<Boolean> update(String agentId, UUID id, Changes changes, Instant now) {
    return pool.preparedQuery("UPDATE packs.todos SET status = coalesce($3::text, status), priority = coalesce($4::text, priority),"
        + " notes = coalesce($5::text, notes), due_date = coalesce($6::timestamptz, due_date), updated_at = $7"
        + " WHERE id = $1 AND agent_id = $2")
      .execute(Tuple.of(id, agentId, changes.status(), changes.priority(), changes.notes(), Rows.utc(changes.dueDate()), Rows.utc(now)))
      .map(r -> r.rowCount() == 1);
  }

  /** Deletes the agent's todo; false when the agent has no todo with this id. */
  public Future<Boolean> delete(String agentId, UUID id) {
    return pool.preparedQuery("DELETE FROM packs.todos WHERE id = $1 AND agent_id = $2")
      .execute(Tuple.of(id, agentId))
      .map(r -> r.rowCount() == 1);
  }

  private static Todo map(Row r) {
    return new Todo(r.getUUID("id"), r.getString("agent_id"), r.getString("description"), r.getString("status"),
      r.getString("priority"), r.getString("notes"), Rows.instant(r, "due_date"), Rows.instant(r, "created_at"),
      Rows.instant(r, "updated_at"));
  }
}
