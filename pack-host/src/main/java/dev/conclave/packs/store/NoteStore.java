package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Agents' key/value notes ({@code packs.notes}), unique per (agent, key); scoped to one agent. */
public final class NoteStore {

  private final Pool pool;

  public NoteStore(Pool pool) {
    this.pool = pool;
  }

  /** Creates the note, or replaces its value (keeping its id and creation time). Repeating it is harmless. */
  public Future<Void> set(String agentId, String key, String value, Instant now) {
    return pool.preparedQuery("INSERT INTO packs.notes (id, agent_id, key, value, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)"
        + " ON CONFLICT (agent_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at")
      .execute(Tuple.of(UUID.randomUUID(), agentId, key, value, Rows.utc(now)))
      .mapEmpty();
  }

  public Future<Optional<String>> get(String agentId, String key) {
    return pool.preparedQuery("SELECT value FROM packs.notes WHERE agent_id = $1 AND key = $2")
      .execute(Tuple.of(agentId, key))
      .map(rows -> Rows.first(rows, r -> r.getString("value")));
  }

  /** The agent's keys in ascending order. */
  public Future<List<String>> keys(String agentId, int limit) {
    return pool.preparedQuery("SELECT key FROM packs.notes WHERE agent_id = $1 ORDER BY key LIMIT $2")
      .execute(Tuple.of(agentId, limit))
      .map(rows -> Rows.all(rows, r -> r.getString("key")));
  }

  /** Deletes the agent's note; false when it has none with this key. */
  public Future<Boolean> delete(String agentId, String key) {
    return pool.preparedQuery("DELETE FROM packs.notes WHERE agent_id = $1 AND key = $2")
      .execute(Tuple.of(agentId, key))
      .map(r -> r.rowCount() == 1);
  }
}
