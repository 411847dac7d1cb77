package dev.conclave.packs.store;

import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** The record of pack tool calls ({@code packs.tool_calls}): one row per call, written when it ends. */
public final class ToolCallLog {

  /** Error texts are stored up to this length. */
  static final int MAX_ERROR = 2000;

  private final Pool pool;

  public ToolCallLog(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> record(ToolCall call, String packId, String node, ToolOutcome outcome, Instant startedAt, Duration took) {
    String error = outcome.succeeded() ? null : truncate(outcome.error());
    return pool.preparedQuery("INSERT INTO packs.tool_calls (id, client_request_id, agent_id, principal_id, tool_name, pack_id, origin,"
        + " node, outcome, error, started_at, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        + " ON CONFLICT (id) DO NOTHING")
      .execute(Tuple.from(new Object[] {UUID.fromString(call.callId()), call.clientRequestId(), call.agentId(), call.principalId(),
        call.toolName(), packId, call.origin(), node, outcome.status().wire(), error, startedAt.atOffset(ZoneOffset.UTC), took.toMillis()}))
      .mapEmpty();
  }

  /** The newest calls of an agent, newest first. */
  public Future<JsonArray> recentOf(String agentId, int limit) {
    return pool.preparedQuery("SELECT id, client_request_id, tool_name, pack_id, origin, node, outcome, error, started_at, duration_ms"
        + " FROM packs.tool_calls WHERE agent_id = $1 ORDER BY started_at DESC LIMIT $2")
      .execute(Tuple.of(agentId, limit))
      .map(rows -> {
        JsonArray out = new JsonArray();
        for (Row r : rows) {
          JsonObject json = new JsonObject()
            .put("callId", r.getUUID("id").toString())
            .put("requestId", r.getString("client_request_id"))
            .put("tool", r.getString("tool_name"))
            .put("packId", r.getString("pack_id"))
            .put("origin", r.getString("origin"))
            .put("node", r.getString("node"))
            .put("outcome", r.getString("outcome"))
            .put("startedAt", DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("started_at").toInstant()))
            .put("durationMs", r.getLong("duration_ms"));
          if (r.getString("error") != null) {
            json.put("error", r.getString("error"));
          }
          out.add(json);
        }
        return out;
      });
  }

  private static String truncate(String s) {
    return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR);
  }
}
