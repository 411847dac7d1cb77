package dev.conclave.gateway.retention;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.util.Optional;
import java.util.UUID;

/**
 * An agent's own retention (gateway.agent_retention): a conversation window in days and a number of
 * latest events each conversation keeps, each empty for the node's setting. {@link ConversationRetention}'s
 * statements read the table; this writes and reads it for the admin API.
 */
public final class AgentRetentionStore {

  /** An agent's override; both empty when it has none. */
  public record Override(String agentId, Optional<Integer> conversationDays, Optional<Integer> keepEvents) {
  }

  private static final SqlFile SQL = SqlFile.of(AgentRetentionStore.class, "agent_retention.sql");

  private final Pool pool;

  public AgentRetentionStore(Pool pool) {
    this.pool = pool;
  }

  /** The agent's override; empty when no agent of that id has registered. */
  public Future<Optional<Override>> find(String agentId) {
    return SQL.get("Find").with("agent_id", agentId).execute(pool)
      .map(rows -> rows.iterator().hasNext() ? Optional.of(map(rows.iterator().next())) : Optional.empty());
  }

  /**
   * Sets both parts (empty is the node's setting; both empty clears the override); fails
   * {@code agent_not_found} when no agent of that id has registered.
   */
  public Future<Override> set(String agentId, Optional<Integer> conversationDays, Optional<Integer> keepEvents, Optional<UUID> by) {
    return SQL.get("Set").with("agent_id", agentId).with("days", conversationDays.orElse(null)).with("keep", keepEvents.orElse(null))
      .with("updated_by", by.orElse(null)).execute(pool)
      .compose(rows -> rows.iterator().hasNext() ? Future.succeededFuture(map(rows.iterator().next()))
        : Future.failedFuture(GatewayErrors.agentUnknown(agentId)));
  }

  private static Override map(Row row) {
    return new Override(row.getString("agent_id"), Optional.ofNullable(row.getInteger("conversation_days")),
      Optional.ofNullable(row.getInteger("keep_events")));
  }
}
