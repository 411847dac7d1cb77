package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Mail between agents ({@code packs.mail}). Only the recipient can list or read a mail. */
public final class MailStore {

  private static final String COLUMNS = "id, from_agent_id, to_agent_id, subject, content, read_at, created_at";

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
    return pool.preparedQuery("INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at) VALUES ($1, $2, $3, $4, $5, $6)")
      .execute(Tuple.of(id, fromAgentId, toAgentId, subject, content, Rows.utc(now)))
      .map(r -> id);
  }

  /** Mail addressed to the agent, newest first; with {@code unreadOnly}, only mail it has not read. */
  public Future<List<Mail>> inbox(String toAgentId, boolean unreadOnly, int limit) {
    // two statements rather than a flag, so the unread query can use its partial index
    String where = unreadOnly ? " WHERE to_agent_id = $1 AND read_at IS NULL" : " WHERE to_agent_id = $1";
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.mail" + where + " ORDER BY created_at DESC, seq DESC LIMIT $2")
      .execute(Tuple.of(toAgentId, limit))
      .map(rows -> Rows.all(rows, MailStore::map));
  }

  /**
   * Marks the agent's mail read (only the first read sets the time) and returns it as it is
   * afterwards; empty when no mail with this id is addressed to the agent.
   */
  public Future<Optional<Mail>> read(String toAgentId, UUID id, Instant now) {
    return pool.preparedQuery("UPDATE packs.mail SET read_at = coalesce(read_at, $3) WHERE id = $1 AND to_agent_id = $2 RETURNING " + COLUMNS)
      .execute(Tuple.of(id, toAgentId, Rows.utc(now)))
      .map(rows -> Rows.first(rows, MailStore::map));
  }

  private static Mail map(Row r) {
    return new Mail(r.getUUID("id"), r.getString("from_agent_id"), r.getString("to_agent_id"), r.getString("subject"),
      r.getString("content"), Rows.instant(r, "read_at"), Rows.instant(r, "created_at"));
  }
}
