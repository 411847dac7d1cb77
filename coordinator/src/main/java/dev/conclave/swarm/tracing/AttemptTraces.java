package dev.conclave.swarm.tracing;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.tracing.NodeTracing;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A swarm task's attempts as spans of the task's trace (issue 44): each attempt, from its CLAIM to
 * its COMPLETE, FAIL, cancellation or the reaper's failing it for an agent that stopped
 * heartbeating, is one {@value #ATTEMPT} span, a child of the trace context stored with the task at
 * its creation, with the task's history in between (progress reports, leases acquired, extended,
 * released, messages naming the task) as span events at the times they happened. A retry is another
 * attempt: another span of the same trace.
 *
 * <p>Why the span is made at the attempt's end: an attempt begins on the node that took the CLAIM
 * and ends on whichever node takes the agent's COMPLETE (or runs the reaper), maybe minutes later
 * and after a restart; a span held in one node's memory cannot outlive that. Everything the span
 * needs is in the database already, written in the transaction of each change (the task history),
 * so the node that publishes the ending event, exactly one in the cluster, reads the attempt back
 * and emits it whole, with the claim's time as its start ({@code setStartTimestamp}) and each
 * event's own time. Until it ends, an attempt's requests are in the trace through the agent: the
 * claim answers with the task's {@code traceparent}, which an agent sends with its calls.
 *
 * <p>Times are the coordinator's (the {@code now} of each change). With tracing off this does nothing:
 * no query, no span.
 */
public final class AttemptTraces {

  private static final Logger LOG = LoggerFactory.getLogger(AttemptTraces.class);
  private static final SqlFile SQL = SqlFile.of(AttemptTraces.class, "attempts.sql");

  /** One attempt of a task, from its claim to its end. */
  public static final String ATTEMPT = "conclave.task.attempt";
  public static final String TASK_ID = "conclave.task_id";
  public static final String AGENT_ID = "conclave.agent_id";
  public static final String NODE_ID = "conclave.node_id";
  /** The attempt's number: 1 for the first claim, 2 for the first retry, … */
  public static final String ATTEMPT_NUMBER = "conclave.task.attempt_number";
  /** {@code completed}, {@code needs_review}, {@code retry} (failed, will be retried), {@code failed}, {@code cancelled}. */
  public static final String OUTCOME = "conclave.task.outcome";
  public static final String FAILURE_TYPE = "conclave.task.failure_type";

  /** The task events that end an attempt. */
  private static final Set<String> ENDS = Set.of("completed", "needs_review", "failed", "cancelled");
  private static final int MAX_TEXT = 512;

  private final NodeTracing tracing;
  private final Pool pool;
  private final String nodeId;

  public AttemptTraces(NodeTracing tracing, Pool pool, String nodeId) {
    this.tracing = tracing;
    this.pool = pool;
    this.nodeId = nodeId;
  }

  /**
   * Events as this node publishes them (those its own requests made, or those it took from the
   * outbox): the attempts they end become spans, after one query for all of them.
   */
  public void published(List<JsonObject> events) {
    if (!tracing.enabled()) {
      return;
    }
    List<String> tasks = new ArrayList<>();
    List<Long> seqs = new ArrayList<>();
    for (JsonObject event : events) {
      if ("task".equals(event.getString("kind")) && ENDS.contains(event.getString("event")) && event.getValue("seq") instanceof Number seq) {
        tasks.add(event.getString("id"));
        seqs.add(seq.longValue());
      }
    }
    if (tasks.isEmpty()) {
      return;
    }
    SQL.get("Attempts").with("task_ids", tasks.toArray(new String[0])).with("end_seqs", seqs.toArray(new Long[0])).execute(pool)
      .onSuccess(this::emit)
      .onFailure(e -> LOG.warn("swarm tracing: reading the attempts of {} tasks failed error={}", tasks.size(), e.getMessage()));
  }

  private void emit(RowSet<Row> rows) {
    List<Row> attempt = new ArrayList<>();
    long endSeq = Long.MIN_VALUE;
    for (Row row : rows) {
      if (row.getLong("end_seq") != endSeq && !attempt.isEmpty()) {
        emit(attempt);
        attempt = new ArrayList<>();
      }
      endSeq = row.getLong("end_seq");
      attempt.add(row);
    }
    if (!attempt.isEmpty()) {
      emit(attempt);
    }
  }

  /** One attempt: its rows from the claim to the ending event. */
  private void emit(List<Row> rows) {
    Row claim = rows.get(0);
    Row end = rows.get(rows.size() - 1);
    for (Row row : rows.subList(0, rows.size() - 1)) {
      if (isEnd(row)) {
        // an end after an earlier one (a review decided after needs_review): that attempt was reported then
        return;
      }
    }
    JsonObject endData = data(end);
    String outcome = outcome(end.getString("event"), endData);
    AttributesBuilder attributes = Attributes.builder()
      .put(TASK_ID, claim.getString("task_id"))
      .put(ATTEMPT_NUMBER, claim.getLong("attempt"))
      .put(OUTCOME, outcome)
      .put(NODE_ID, nodeId);
    Optional.ofNullable(data(claim).getString("agentId")).ifPresent(agent -> attributes.put(AGENT_ID, agent));
    Optional.ofNullable(endData.getString("failureType")).ifPresent(type -> attributes.put(FAILURE_TYPE, type));
    Span span = tracing.tracer().spanBuilder(ATTEMPT)
      .setParent(TraceContexts.parent(Optional.of(claim.getString("trace_context"))))
      .setSpanKind(SpanKind.CONSUMER)
      .setStartTimestamp(claim.getLong("at_ms"), TimeUnit.MILLISECONDS)
      .setAllAttributes(attributes.build())
      .startSpan();
    for (Row row : rows) {
      span.addEvent(row.getString("kind") + "." + row.getString("event"), eventAttributes(data(row)), row.getLong("at_ms"),
        TimeUnit.MILLISECONDS);
    }
    if (outcome.equals("retry") || outcome.equals("failed")) {
      span.setStatus(StatusCode.ERROR, text(endData.getString("message", outcome)));
    }
    span.end(end.getLong("at_ms"), TimeUnit.MILLISECONDS);
  }

  private static boolean isEnd(Row row) {
    return "task".equals(row.getString("kind")) && ENDS.contains(row.getString("event"));
  }

  private static String outcome(String event, JsonObject data) {
    if (event.equals("failed")) {
      return data.getBoolean("willRetry", false) ? "retry" : "failed";
    }
    return event;
  }

  private static JsonObject data(Row row) {
    Object data = row.getValue("data");
    return data instanceof JsonObject json ? json : new JsonObject();
  }

  /** An event's data members that are plain values, as {@code conclave.<member in snake_case>}. */
  private static Attributes eventAttributes(JsonObject data) {
    AttributesBuilder attributes = Attributes.builder();
    data.forEach(member -> {
      String key = "conclave." + snake(member.getKey());
      Object value = member.getValue();
      if (value instanceof String text) {
        attributes.put(key, text(text));
      } else if (value instanceof Boolean flag) {
        attributes.put(key, flag);
      } else if (value instanceof Integer || value instanceof Long) {
        attributes.put(key, ((Number) value).longValue());
      } else if (value instanceof Number number) {
        attributes.put(key, number.doubleValue());
      }
    });
    return attributes.build();
  }

  private static String snake(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
  }

  private static String text(String value) {
    return value.length() <= MAX_TEXT ? value : value.substring(0, MAX_TEXT) + "…";
  }
}
