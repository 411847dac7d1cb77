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

/**
 * The bulletin board shared by all agents ({@code packs.bbs_posts}): threads (posts with a subject
 * and no thread) and their replies. Posts are never changed or deleted.
 */
public final class BbsStore {

  private static final SqlFile SQL = SqlFile.of(BbsStore.class, "bbs.sql");

  private final Pool pool;

  public BbsStore(Pool pool) {
    this.pool = pool;
  }

  /** A thread ({@code threadId} null) or a reply ({@code subject} null). */
  public record Post(UUID id, String agentId, UUID threadId, String subject, String content, Instant createdAt) {
  }

  /** What became of a reply: posted (with its id), or refused because the target is missing or is a reply. */
  public enum ReplyOutcome { POSTED, NO_SUCH_THREAD, TARGET_IS_A_REPLY }

  public record Reply(ReplyOutcome outcome, UUID postId) {
  }

  public Future<UUID> createThread(String agentId, String subject, String content, Instant now) {
    UUID id = UUID.randomUUID();
    return SQL.get("CreateThread").with("id", id).with("agent_id", agentId).with("subject", subject).with("content", content)
      .with("now", Rows.utc(now)).execute(pool)
      .map(r -> id);
  }

  /** Replies to a thread, checking in the same statement that the target exists and is a thread. */
  public Future<Reply> reply(String agentId, UUID threadId, String content, Instant now) {
    UUID id = UUID.randomUUID();
    return SQL.get("Reply").with("id", id).with("thread_id", threadId).with("agent_id", agentId).with("content", content)
      .with("now", Rows.utc(now)).execute(pool)
      .map(rows -> {
        Row r = rows.iterator().next();
        if (r.getBoolean("posted")) {
          return new Reply(ReplyOutcome.POSTED, id);
        }
        return new Reply(r.getBoolean("found") ? ReplyOutcome.TARGET_IS_A_REPLY : ReplyOutcome.NO_SUCH_THREAD, null);
      });
  }

  /** Threads of every agent, newest first. */
  public Future<List<Post>> threads(int limit) {
    return SQL.get("Threads").with("limit", limit).execute(pool)
      .map(rows -> Rows.all(rows, BbsStore::map));
  }

  /** The post with this id, thread or reply. */
  public Future<Optional<Post>> post(UUID id) {
    return SQL.get("Post").with("id", id).execute(pool)
      .map(rows -> Rows.first(rows, BbsStore::map));
  }

  /** A thread's replies, oldest first. */
  public Future<List<Post>> replies(UUID threadId, int limit) {
    return SQL.get("Replies").with("thread_id", threadId).with("limit", limit).execute(pool)
      .map(rows -> Rows.all(rows, BbsStore::map));
  }

  private static Post map(Row r) {
    return new Post(r.getUUID("id"), r.getString("agent_id"), r.getUUID("thread_id"), r.getString("subject"),
      r.getString("content"), Rows.instant(r, "created_at"));
  }
}
