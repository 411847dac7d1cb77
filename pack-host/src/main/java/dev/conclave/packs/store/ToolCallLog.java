package dev.conclave.packs.store;

import dev.conclave.platform.db.BatchWriter;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The record of pack tool calls ({@code packs.tool_calls}): one row per call, written when it ends.
 * Rows are written in batches ({@link BatchWriter}), so recording never holds a call up nor floods
 * the pool under load; a row that cannot be kept is counted and logged, never dropped silently.
 */
public final class ToolCallLog {

  /** Error texts are stored up to this length. */
  static final int MAX_ERROR = 2000;
  static final int MAX_QUEUED = 20_000;
  static final int BATCH = 500;
  static final long FLUSH_MS = 200;

  private record Row(UUID id, String clientRequestId, String agentId, UUID principalId, String toolName, String packId, String origin,
                     String node, String outcome, String error, OffsetDateTime startedAt, long durationMs) {
  }

  private static final SqlFile SQL = SqlFile.of(ToolCallLog.class, "tool_calls.sql");

  private final Pool pool;
  private final BatchWriter<Row> writer;

  public ToolCallLog(Pool pool, MeterRegistry metrics) {
    this.pool = pool;
    this.writer = new BatchWriter<>("tool calls (packs.tool_calls)", MAX_QUEUED, BATCH, this::insert,
      metrics.counter(MetricNames.PACKS_TOOL_CALLS_UNRECORDED));
  }

  /** Starts the batch writer; call once, from the role's verticle. */
  public void start(Vertx vertx) {
    writer.start(vertx, FLUSH_MS);
  }

  public void record(ToolCall call, String packId, String node, ToolOutcome outcome, Instant startedAt, Duration took) {
    writer.add(new Row(UUID.fromString(call.callId()), call.clientRequestId(), call.agentId(), call.principalId(), call.toolName(), packId,
      call.origin(), node, outcome.status().wire(), outcome.succeeded() ? null : truncate(outcome.error()),
      startedAt.atOffset(ZoneOffset.UTC), took.toMillis()));
  }

  /** Writes what is queued; also at shutdown. */
  public Future<Void> flush() {
    return writer.flush();
  }

  private Future<Void> insert(List<Row> rows) {
    int n = rows.size();
    UUID[] ids = new UUID[n];
    String[] requests = new String[n];
    String[] agents = new String[n];
    UUID[] principals = new UUID[n];
    String[] tools = new String[n];
    String[] packs = new String[n];
    String[] origins = new String[n];
    String[] nodes = new String[n];
    String[] outcomes = new String[n];
    String[] errors = new String[n];
    OffsetDateTime[] started = new OffsetDateTime[n];
    Long[] durations = new Long[n];
    for (int i = 0; i < n; i++) {
      Row r = rows.get(i);
      ids[i] = r.id();
      requests[i] = r.clientRequestId();
      agents[i] = r.agentId();
      principals[i] = r.principalId();
      tools[i] = r.toolName();
      packs[i] = r.packId();
      origins[i] = r.origin();
      nodes[i] = r.node();
      outcomes[i] = r.outcome();
      errors[i] = r.error();
      started[i] = r.startedAt();
      durations[i] = r.durationMs();
    }
    return SQL.get("InsertBatch").with("ids", ids).with("requests", requests).with("agents", agents).with("principals", principals)
      .with("tools", tools).with("packs", packs).with("origins", origins).with("nodes", nodes).with("outcomes", outcomes)
      .with("errors", errors).with("started", started).with("durations", durations).execute(pool)
      .mapEmpty();
  }

  /** The newest calls of an agent, newest first. */
  public Future<JsonArray> recentOf(String agentId, int limit) {
    return SQL.get("RecentOf").with("agent_id", agentId).with("limit", limit).execute(pool)
      .map(rows -> {
        JsonArray out = new JsonArray();
        for (io.vertx.sqlclient.Row r : rows) {
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
