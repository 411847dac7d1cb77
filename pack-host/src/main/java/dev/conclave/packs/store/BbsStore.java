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

/**
 * The bulletin board shared by all agents ({@code packs.bbs_posts}): threads (posts with a subject
 * and no thread) and their replies. Posts are never changed or deleted.
 */
public final class BbsStore {

  private static final String COLUMNS = "id, agent_id, thread_id, subject, content, created_at";

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
    return pool.preparedQuery("INSERT INTO packs.bbs_posts (id, agent_id, thread_id, subject, content, created_at) VALUES ($1, $2, NULL, $3, $4, $5)")
      .execute(Tuple.of(id, agentId, subject, content, Rows.utc(now)))
      .map(r -> id);
  }

  /** Replies to a thread, checking in the same statement that the target exists and is a thread. */
  public Future<Reply> reply(String agentId, UUID threadId, String content, Instant now) {
    UUID id = UUID.randomUUID();
    return pool.preparedQuery("WITH target AS (SELECT id, thread_id FROM packs.bbs_posts WHERE id = $2),"
        + " posted AS (INSERT INTO packs.bbs_posts (id, agent_id, thread_id, subject, content, created_at)"
        + "   SELECT $1, $3, target.id, NULL, $4, $5 FROM target WHERE target.thread_id IS NULL RETURNING id)"
        + " SELECT EXISTS (SELECT 1 FROM target) AS found, EXISTS (SELECT 1 FROM posted) AS posted")
      .execute(Tuple.of(id, threadId, agentId, content, Rows.utc(now)))
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
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.bbs_posts WHERE thread_id IS NULL ORDER BY created_at DESC, seq DESC LIMIT $1")
      .execute(Tuple.of(limit))
      .map(rows -> Rows.all(rows, BbsStore::map));
  }

  /** The post with this id, thread or reply. */
  public Future<Optional<Post>> post(UUID id) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.bbs_posts WHERE id = $1")
      .execute(Tuple.of(id))
      .map(rows -> Rows.first(rows, BbsStore::map));
  }

  /** A thread's replies, oldest first. */
  public Future<List<Post>> replies(UUID threadId, int limit) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM packs.bbs_posts WHERE thread_id = $1 ORDER BY created_at, seq LIMIT $2")
      .execute(Tuple.of(threadId, limit))
      .map(rows -> Rows.all(rows, BbsStore::map));
  }

  private static Post map(Row r) {
    return new Post(r.getUUID("id"), r.getString("agent_id"), r.getUUID("thread_id"), r.getString("subject"),
      r.getString("content"), Rows.instant(r, "created_at"));
  }
}
