package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.proto.coven.ClientToolApprovalRequest;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Tool approvals agents asked for, and the decisions humans made. */
public final class ApprovalStore {

  /** A pending approval, with where its request event sits in the ledger. */
  public record Pending(ClientToolApprovalRequest request, String conversationKey, long ledgerSeq) {
  }

  /** A decision that was recorded: the approval was pending and now is not. */
  public record Decided(UUID requestId, String conversationKey) {
  }

  private final Pool pool;

  public ApprovalStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordPending(SqlClient tx, UUID requestId, String toolId, String agentId, String conversationKey,
                                    String toolName, String inputJson, long ledgerSeq) {
    return tx.preparedQuery("INSERT INTO gateway.approvals (request_id, tool_id, agent_id, conversation_key, tool_name, input_json, ledger_seq, state)"
        + " VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending') ON CONFLICT (request_id, tool_id) DO NOTHING")
      .execute(Tuple.of(requestId, toolId, agentId, conversationKey, toolName, inputJson, ledgerSeq))
      .mapEmpty();
  }

  /** Records an automatic approval (approve_all was given earlier in the same request). */
  public Future<Void> recordAutoApproved(SqlClient tx, UUID requestId, String toolId, String agentId, String conversationKey,
                                         String toolName, String inputJson, long ledgerSeq) {
    return tx.preparedQuery("INSERT INTO gateway.approvals (request_id, tool_id, agent_id, conversation_key, tool_name, input_json, ledger_seq, state, decided_at)"
        + " VALUES ($1, $2, $3, $4, $5, $6, $7, 'approved', now()) ON CONFLICT (request_id, tool_id) DO NOTHING")
      .execute(Tuple.of(requestId, toolId, agentId, conversationKey, toolName, inputJson, ledgerSeq))
      .mapEmpty();
  }

  /**
   * Decides the pending approval of {@code toolId} in the agent's in-flight request; empty when no
   * such approval is pending (already decided, unknown, or its request ended).
   */
  public Future<Optional<Decided>> decide(SqlClient tx, String agentId, String toolId, boolean approved, UUID by) {
    return tx.preparedQuery("UPDATE gateway.approvals a SET state = $3, decided_at = now(), decided_by = $4"
        + " FROM gateway.requests r WHERE a.agent_id = $1 AND a.tool_id = $2 AND a.state = 'pending'"
        + " AND r.id = a.request_id AND r.state = 'dispatched' RETURNING a.request_id, a.conversation_key")
      .execute(Tuple.of(agentId, toolId, approved ? "approved" : "denied", by))
      .map(rows -> Rows.first(rows, r -> new Decided(r.getUUID("request_id"), r.getString("conversation_key"))));
  }

  /** Approvals still waiting for a human in a conversation whose request is in flight. */
  public Future<List<Pending>> pendingIn(String conversationKey) {
    return pool.preparedQuery("SELECT a.request_id, a.tool_id, a.agent_id, a.tool_name, a.input_json, a.ledger_seq FROM gateway.approvals a"
        + " JOIN gateway.requests r ON r.id = a.request_id"
        + " WHERE a.conversation_key = $1 AND a.state = 'pending' AND r.state = 'dispatched' ORDER BY a.ledger_seq")
      .execute(Tuple.of(conversationKey))
      .map(rows -> Rows.all(rows, r -> new Pending(ClientToolApprovalRequest.newBuilder()
        .setAgentId(r.getString("agent_id"))
        .setRequestId(r.getUUID("request_id").toString())
        .setToolId(r.getString("tool_id"))
        .setToolName(r.getString("tool_name"))
        .setInputJson(r.getString("input_json"))
        .build(), conversationKey, r.getLong("ledger_seq"))));
  }

  /** Marks a request's pending approvals expired once it ended. */
  public Future<Void> expireOf(SqlClient tx, UUID requestId) {
    return tx.preparedQuery("UPDATE gateway.approvals SET state = 'expired', decided_at = now() WHERE request_id = $1 AND state = 'pending'")
      .execute(Tuple.of(requestId)).mapEmpty();
  }
}
