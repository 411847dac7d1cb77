package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.proto.coven.TokenUsage;
import dev.conclave.proto.coven.ToolStateUpdate;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** Token usage and tool states reported by agents, and their totals. */
public final class UsageStore {

  private static final SqlFile SQL = SqlFile.of(UsageStore.class, "usage.sql");

  private final Pool pool;

  public UsageStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordUsage(SqlClient tx, String agentId, String conversationKey, UUID requestId, TokenUsage u) {
    return SQL.get("RecordUsage").with("agent_id", agentId).with("conversation_key", conversationKey).with("request_id", requestId)
      .with("input_tokens", (long) u.getInputTokens()).with("output_tokens", (long) u.getOutputTokens())
      .with("cache_read_tokens", (long) u.getCacheReadTokens()).with("cache_write_tokens", (long) u.getCacheWriteTokens())
      .with("thinking_tokens", (long) u.getThinkingTokens())
      .execute(tx)
      .mapEmpty();
  }

  public Future<Void> recordToolUse(SqlClient tx, String agentId, String conversationKey, UUID requestId, String toolId, String name) {
    return SQL.get("RecordToolUse").with("request_id", requestId).with("tool_id", toolId).with("agent_id", agentId)
      .with("conversation_key", conversationKey).with("name", name)
      .execute(tx)
      .mapEmpty();
  }

  public Future<Void> recordToolState(SqlClient tx, String agentId, String conversationKey, UUID requestId, ToolStateUpdate s) {
    return SQL.get("RecordToolState").with("request_id", requestId).with("tool_id", s.getId()).with("agent_id", agentId)
      .with("conversation_key", conversationKey).with("state", s.getState().name()).with("detail", s.hasDetail() ? s.getDetail() : null)
      .execute(tx)
      .mapEmpty();
  }

  /** Totals for one agent ({@code byAgent}) or one conversation. */
  public Future<JsonObject> totals(boolean byAgent, String key) {
    return SQL.get(byAgent ? "TotalsOfAgent" : "TotalsOfConversation").with("key", key)
      .execute(pool)
      .map(rows -> {
        Row r = rows.iterator().next();
        return new JsonObject()
          .put(byAgent ? "agentId" : "conversationKey", key)
          .put("reports", r.getLong("reports"))
          .put("requests", r.getLong("requests"))
          .put("inputTokens", r.getLong("input"))
          .put("outputTokens", r.getLong("output"))
          .put("cacheReadTokens", r.getLong("cache_read"))
          .put("cacheWriteTokens", r.getLong("cache_write"))
          .put("thinkingTokens", r.getLong("thinking"));
      });
  }

  /** The latest state of every tool invocation of a request. */
  public Future<JsonArray> toolsOf(UUID requestId) {
    return SQL.get("ToolsOf").with("request_id", requestId)
      .execute(pool)
      .map(rows -> {
        JsonArray out = new JsonArray();
        for (Row r : rows) {
          JsonObject tool = new JsonObject().put("toolId", r.getString("tool_id")).put("state", r.getString("state"))
            .put("updatedAt", DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("updated_at").toInstant()));
          if (r.getString("name") != null) {
            tool.put("name", r.getString("name"));
          }
          if (r.getString("detail") != null) {
            tool.put("detail", r.getString("detail"));
          }
          out.add(tool);
        }
        return out;
      });
  }
}
