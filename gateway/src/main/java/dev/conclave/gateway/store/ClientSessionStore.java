package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;
import java.util.UUID;

/** Session protocol sessions: whose they are, what they follow, and their last task. */
public final class ClientSessionStore {

  /** A stored session. */
  public record Stored(UUID sessionId, UUID principalId, String agentId, String conversationKey, Optional<UUID> taskRequestId,
                       Optional<String> taskSubId) {
  }

  private final Pool pool;

  public ClientSessionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<Stored>> find(UUID sessionId) {
    return pool.preparedQuery("SELECT session_id, principal_id, agent_id, conversation_key, task_request_id, task_sub_id"
        + " FROM gateway.client_sessions WHERE session_id = $1")
      .execute(Tuple.of(sessionId))
      .map(rows -> Rows.first(rows, r -> new Stored(r.getUUID("session_id"), r.getUUID("principal_id"), r.getString("agent_id"),
        r.getString("conversation_key"), Optional.ofNullable(r.getUUID("task_request_id")), Optional.ofNullable(r.getString("task_sub_id")))));
  }

  /** Creates or reconfigures a session of {@code principalId}; false when the id is another principal's. */
  public Future<Boolean> configure(UUID sessionId, UUID principalId, String agentId, String conversationKey, boolean keepTask) {
    return pool.preparedQuery("INSERT INTO gateway.client_sessions AS s (session_id, principal_id, agent_id, conversation_key) VALUES ($1, $2, $3, $4)"
        + " ON CONFLICT (session_id) DO UPDATE SET agent_id = EXCLUDED.agent_id, conversation_key = EXCLUDED.conversation_key,"
        + " task_request_id = CASE WHEN $5 THEN s.task_request_id END, task_sub_id = CASE WHEN $5 THEN s.task_sub_id END, updated_at = now()"
        + " WHERE s.principal_id = EXCLUDED.principal_id")
      .execute(Tuple.of(sessionId, principalId, agentId, conversationKey, keepTask))
      .map(r -> r.rowCount() == 1);
  }

  public Future<Void> task(UUID sessionId, UUID requestId, String subId) {
    return pool.preparedQuery("UPDATE gateway.client_sessions SET task_request_id = $2, task_sub_id = $3, updated_at = now() WHERE session_id = $1")
      .execute(Tuple.of(sessionId, requestId, subId)).mapEmpty();
  }
}
