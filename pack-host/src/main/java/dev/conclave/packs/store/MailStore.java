package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Mail between agents ({@code packs.mail}). Only the recipient can list or read a mail. */
public final class MailStore {

  private static final SqlFile SQL = SqlFile.of(MailStore.class, "mail.sql");

  private final Pool pool;

  public MailStore(Pool pool) {
    this.pool = pool;
  }

  /** A mail; {@code readAt} is null until the recipient first reads it. */
  public record Mail(UUID id, String fromAgentId, String toAgentId, String subject, String content, Instant readAt,
                     Instant createdAt) {
  }

  public Future<UUID> send(String fromAgentId, String toAgentId, String subject, String content, Instant now) {
    UUID id = UUID.randomUUID();
    return SQL.get("Send").with("id", id).with("from_agent_id", fromAgentId).with("to_agent_id", toAgentId).with("subject", subject)
      .with("content", content).with("now", Rows.utc(now)).execute(pool)
      .map(r -> id);
  }

  /** Mail addressed to the agent, newest first; with {@code unreadOnly}, only mail it has not read. */
  public Future<List<Mail>> inbox(String toAgentId, boolean unreadOnly, int limit) {
    // two statements rather than a flag, so the unread query can use its partial index
    return SQL.get(unreadOnly ? "UnreadInbox" : "Inbox").with("to_agent_id", toAgentId).with("limit", limit).execute(pool)
      .map(rows -> Rows.all(rows, MailStore::map));
  }

  /**
   * Marks the agent's mail read (only the first read sets the time) and returns it as it is
   * afterwards; empty when no mail with this id is addressed to the agent.
   */
  public Future<Optional<Mail>> read(String toAgentId, UUID id, Instant now) {
    return SQL.get("Read").with("id", id).with("to_agent_id", toAgentId).with("now", Rows.utc(now)).execute(pool)
      .map(rows -> Rows.first(rows, MailStore::map));
  }

  private static Mail map(Row r) {
    return new Mail(r.getUUID("id"), r.getString("from_agent_id"), r.getString("to_agent_id"), r.getString("subject"),
      r.getString("content"), Rows.instant(r, "read_at"), Rows.instant(r, "created_at"));
  }
}
