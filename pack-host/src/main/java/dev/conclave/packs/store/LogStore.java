package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Agents' activity logs ({@code packs.log_entries}); every query is scoped to one agent. */
public final class LogStore {

  private static final SqlFile SQL = SqlFile.of(LogStore.class, "log.sql");

  private final Pool pool;

  public LogStore(Pool pool) {
    this.pool = pool;
  }

  public record Entry(UUID id, String agentId, String message, List<String> tags, Instant createdAt) {
  }

  public Future<UUID> add(String agentId, String message, List<String> tags, Instant now) {
    UUID id = UUID.randomUUID();
    return SQL.get("Add").with("id", id).with("agent_id", agentId).with("message", message).with("tags", tags.toArray(String[]::new))
      .with("now", Rows.utc(now)).execute(pool)
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
    return SQL.get("Search").with("agent_id", agentId).with("pattern", pattern).with("since", Rows.utc(since)).with("limit", limit)
      .execute(pool)
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
