package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

import java.util.Optional;
import java.util.UUID;

/** Session protocol sessions: whose they are, what they follow, and their last task. */
public final class ClientSessionStore {

  private static final SqlFile SQL = SqlFile.of(ClientSessionStore.class, "client_sessions.sql");

  /** A stored session. */
  public record Stored(UUID sessionId, UUID principalId, String agentId, String conversationKey, Optional<UUID> taskRequestId,
                       Optional<String> taskSubId) {
  }

  private final Pool pool;

  public ClientSessionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<Stored>> find(UUID sessionId) {
    return SQL.get("Find").with("session_id", sessionId)
      .execute(pool)
      .map(rows -> Rows.first(rows, r -> new Stored(r.getUUID("session_id"), r.getUUID("principal_id"), r.getString("agent_id"),
        r.getString("conversation_key"), Optional.ofNullable(r.getUUID("task_request_id")), Optional.ofNullable(r.getString("task_sub_id")))));
  }

  /** Creates or reconfigures a session of {@code principalId}; false when the id is another principal's. */
  public Future<Boolean> configure(UUID sessionId, UUID principalId, String agentId, String conversationKey, boolean keepTask) {
    return SQL.get("Configure").with("session_id", sessionId).with("principal_id", principalId).with("agent_id", agentId)
      .with("conversation_key", conversationKey).with("keep_task", keepTask)
      .execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  public Future<Void> task(UUID sessionId, UUID requestId, String subId) {
    return SQL.get("Task").with("session_id", sessionId).with("request_id", requestId).with("sub_id", subId).execute(pool).mapEmpty();
  }
}
