package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Agents' key/value notes ({@code packs.notes}), unique per (agent, key); scoped to one agent. */
public final class NoteStore {

  private static final SqlFile SQL = SqlFile.of(NoteStore.class, "notes.sql");

  private final Pool pool;

  public NoteStore(Pool pool) {
    this.pool = pool;
  }

  /** Creates the note, or replaces its value (keeping its id and creation time). Repeating it is harmless. */
  public Future<Void> set(String agentId, String key, String value, Instant now) {
    return SQL.get("Set").with("id", UUID.randomUUID()).with("agent_id", agentId).with("key", key).with("value", value)
      .with("now", Rows.utc(now)).execute(pool)
      .mapEmpty();
  }

  public Future<Optional<String>> get(String agentId, String key) {
    return SQL.get("Get").with("agent_id", agentId).with("key", key).execute(pool)
      .map(rows -> Rows.first(rows, r -> r.getString("value")));
  }

  /** The agent's keys in ascending order. */
  public Future<List<String>> keys(String agentId, int limit) {
    return SQL.get("Keys").with("agent_id", agentId).with("limit", limit).execute(pool)
      .map(rows -> Rows.all(rows, r -> r.getString("key")));
  }

  /** Deletes the agent's note; false when it has none with this key. */
  public Future<Boolean> delete(String agentId, String key) {
    return SQL.get("Delete").with("agent_id", agentId).with("key", key).execute(pool)
      .map(r -> r.rowCount() == 1);
  }
}
