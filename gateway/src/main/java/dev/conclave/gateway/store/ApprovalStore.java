package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.proto.coven.ClientToolApprovalRequest;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Tool approvals agents asked for, and the decisions humans made. */
public final class ApprovalStore {

  private static final SqlFile SQL = SqlFile.of(ApprovalStore.class, "approvals.sql");

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
    return record("RecordPending", tx, requestId, toolId, agentId, conversationKey, toolName, inputJson, ledgerSeq);
  }

  /** Records an automatic approval (approve_all was given earlier in the same request). */
  public Future<Void> recordAutoApproved(SqlClient tx, UUID requestId, String toolId, String agentId, String conversationKey,
                                         String toolName, String inputJson, long ledgerSeq) {
    return record("RecordAutoApproved", tx, requestId, toolId, agentId, conversationKey, toolName, inputJson, ledgerSeq);
  }

  private static Future<Void> record(String statement, SqlClient tx, UUID requestId, String toolId, String agentId, String conversationKey,
                                     String toolName, String inputJson, long ledgerSeq) {
    return SQL.get(statement).with("request_id", requestId).with("tool_id", toolId).with("agent_id", agentId)
      .with("conversation_key", conversationKey).with("tool_name", toolName).with("input_json", inputJson).with("ledger_seq", ledgerSeq)
      .execute(tx)
      .mapEmpty();
  }

  /**
   * Decides the pending approval of {@code toolId} in the agent's in-flight request; empty when no
   * such approval is pending (already decided, unknown, or its request ended).
   */
  public Future<Optional<Decided>> decide(SqlClient tx, String agentId, String toolId, boolean approved, UUID by) {
    return SQL.get("Decide").with("agent_id", agentId).with("tool_id", toolId).with("state", approved ? "approved" : "denied")
      .with("decided_by", by)
      .execute(tx)
      .map(rows -> Rows.first(rows, r -> new Decided(r.getUUID("request_id"), r.getString("conversation_key"))));
  }

  /** Approvals still waiting for a human in a conversation whose request is in flight. */
  public Future<List<Pending>> pendingIn(String conversationKey) {
    return SQL.get("PendingIn").with("conversation_key", conversationKey)
      .execute(pool)
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
    return SQL.get("ExpireOf").with("request_id", requestId).execute(tx).mapEmpty();
  }
}
