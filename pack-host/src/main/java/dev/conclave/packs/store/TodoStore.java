package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Agents' todo lists ({@code packs.todos}). Every read and write names the owning agent in its
 * WHERE clause, so another agent's todo behaves exactly like a missing one.
 */
public final class TodoStore {

  private static final SqlFile SQL = SqlFile.of(TodoStore.class, "todos.sql");

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
    return SQL.get("Add").with("id", id).with("agent_id", agentId).with("description", description).with("priority", priority)
      .with("notes", notes).with("due_date", Rows.utc(dueDate)).with("now", Rows.utc(now)).execute(pool)
      .map(r -> id);
  }

  /**
   * The agent's todos, newest first, optionally only those with this status and priority.
   *
   * @param status a status, or null for any
   * @param priority a priority, or null for any
   */
  public Future<List<Todo>> list(String agentId, String status, String priority, int limit) {
    return SQL.get("List").with("agent_id", agentId).with("status", status).with("priority", priority).with("limit", limit)
      .execute(pool)
      .map(rows -> Rows.all(rows, TodoStore::map));
  }

  /** Applies the changes to the agent's todo; false when the agent has no todo with this id. */
  public Future<Boolean> update(String agentId, UUID id, Changes changes, Instant now) {
    return SQL.get("Update").with("id", id).with("agent_id", agentId).with("status", changes.status())
      .with("priority", changes.priority()).with("notes", changes.notes()).with("due_date", Rows.utc(changes.dueDate()))
      .with("now", Rows.utc(now)).execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  /** Deletes the agent's todo; false when the agent has no todo with this id. */
  public Future<Boolean> delete(String agentId, UUID id) {
    return SQL.get("Delete").with("id", id).with("agent_id", agentId).execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  private static Todo map(Row r) {
    return new Todo(r.getUUID("id"), r.getString("agent_id"), r.getString("description"), r.getString("status"),
      r.getString("priority"), r.getString("notes"), Rows.instant(r, "due_date"), Rows.instant(r, "created_at"),
      Rows.instant(r, "updated_at"));
  }
}
