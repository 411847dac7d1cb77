package dev.conclave.gateway.store;

import dev.conclave.proto.coven.TokenUsage;
import dev.conclave.proto.coven.ToolStateUpdate;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** Token usage and tool states reported by agents, and their totals. */
public final class UsageStore {

  private final Pool pool;

  public UsageStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordUsage(SqlClient tx, String agentId, String conversationKey, UUID requestId, TokenUsage u) {
    return tx.preparedQuery("INSERT INTO gateway.token_usage (agent_id, conversation_key, request_id, input_tokens, output_tokens,"
        + " cache_read_tokens, cache_write_tokens, thinking_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
      .execute(Tuple.of(agentId, conversationKey, requestId, (long) u.getInputTokens(), (long) u.getOutputTokens(),
        (long) u.getCacheReadTokens(), (long) u.getCacheWriteTokens(), (long) u.getThinkingTokens()))
      .mapEmpty();
  }

  public Future<Void> recordToolUse(SqlClient tx, String agentId, String conversationKey, UUID requestId, String toolId, String name) {
    return tx.preparedQuery("INSERT INTO gateway.tool_calls (request_id, tool_id, agent_id, conversation_key, name, state)"
        + " VALUES ($1, $2, $3, $4, $5, 'TOOL_STATE_PENDING') ON CONFLICT (request_id, tool_id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()")
      .execute(Tuple.of(requestId, toolId, agentId, conversationKey, name))
      .mapEmpty();
  }

  public Future<Void> recordToolState(SqlClient tx, String agentId, String conversationKey, UUID requestId, ToolStateUpdate s) {
    return tx.preparedQuery("INSERT INTO gateway.tool_calls (request_id, tool_id, agent_id, conversation_key, state, detail)"
        + " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (request_id, tool_id) DO UPDATE SET state = EXCLUDED.state,"
        + " detail = EXCLUDED.detail, updated_at = now()")
      .execute(Tuple.of(requestId, s.getId(), agentId, conversationKey, s.getState().name(), s.hasDetail() ? s.getDetail() : null))
      .mapEmpty();
  }

  /** Totals for one agent ({@code byAgent}) or one conversation. */
  public Future<JsonObject> totals(boolean byAgent, String key) {
    String column = byAgent ? "agent_id" : "conversation_key";
    return pool.preparedQuery("SELECT count(*) AS reports, count(DISTINCT request_id) AS requests,"
        + " coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,"
        + " coalesce(sum(cache_read_tokens), 0) AS cache_read, coalesce(sum(cache_write_tokens), 0) AS cache_write,"
        + " coalesce(sum(thinking_tokens), 0) AS thinking FROM gateway.token_usage WHERE " + column + " = $1")
      .execute(Tuple.of(key))
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
    return pool.preparedQuery("SELECT tool_id, name, state, detail, updated_at FROM gateway.tool_calls WHERE request_id = $1 ORDER BY updated_at, tool_id")
      .execute(Tuple.of(requestId))
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
