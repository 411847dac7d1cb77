package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Agents' activity logs ({@code packs.log_entries}); every query is scoped to one agent. */
public final class LogStore {

  private static final String COLUMNS = "id, agent_id, message, tags, created_at";

  private final Pool pool;

  public LogStore(Pool pool) {
    this.pool = pool;
  }

  public record Entry(UUID id, String agentId, String message, List<String> tags, Instant createdAt) {
  }

  public Future<UUID> add(String agentId, String message, List<String> tags, Instant now) {
    UUID id = UUID.randomUUID();
    return pool.preparedQuery("INSERT INTO packs.log_entries (id, agent_id, message, tags, created_at) VALUES ($1, $2, $3, $4, $5)")
      .execute(Tuple.of(id, agentId, message, tags.toArray(String[]::new), Rows.utc(now)))
      .map(r -> id);
  }

  /**
   * The agent's entries, newest first.
   *
   * @param contains a case-insensitive substring the message must contain, matched literally; null for any
   * @param since the earliest creation time, inclusive; null for any
   */
  public Future<List<Entry>> search(String agentId, String contains, Instant since, int limit) {
    String pattern = contains == null ? null : "%" + escapeLike(contains) + "%";
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.log_entries WHERE agent_id = $1"
        + " AND ($2::text IS NULL OR message ILIKE $2::text ESCAPE '\\')"
        + " AND ($3::timestamptz IS NULL OR created_at >= $3::timestamptz)"
        + " ORDER BY created_at DESC, seq DESC LIMIT $4")
      .execute(Tuple.of(agentId, pattern, Rows.utc(since), limit))
      .map(rows -> Rows.all(rows, LogStore::map));
  }

  /** Makes {@code %}, {@code _} and the escape character itself match literally in LIKE. */
  static String escapeLike(String text) {
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }

  private static Entry map(Row r) {
    String[] tags = r.getArrayOfStrings("tags");
    return new Entry(r.getUUID("id"), r.getString("agent_id"), r.getString("message"),
      tags == null ? List.of() : List.of(tags), Rows.instant(r, "created_at"));
  }
}
