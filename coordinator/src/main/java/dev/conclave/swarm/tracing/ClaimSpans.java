package dev.conclave.swarm.tracing;

import dev.conclave.platform.tracing.NodeTracing;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.Optional;

/**
 * A CLAIM that got a task, as a short span of the task's trace, at once (issue 44): the attempt's
 * own span is made only at its end ({@link AttemptTraces}), so this is what shows, while the agent
 * works, that the task was claimed, by whom and on which node. The agent's call came without the
 * task's trace (the agent did not know the task yet): its span is linked, not the parent.
 */
public final class ClaimSpans {

  /** A CLAIM that got a task, on the node that took it. */
  public static final String CLAIM = "conclave.task.claim";

  private final NodeTracing tracing;
  private final String nodeId;

  public ClaimSpans(NodeTracing tracing, String nodeId) {
    this.tracing = tracing;
    this.nodeId = nodeId;
  }

  /** Whether claims are traced: without tracing, a CLAIM's answer is not even looked at. */
  public boolean enabled() {
    return tracing.enabled();
  }

  /**
   * A CLAIM by {@code agentId} that began at {@code start}, in the agent's call {@code caller}, was
   * answered with {@code reply} (JSON text): a span in the trace of the task it got, if any.
   */
  public void claimed(Instant start, SpanContext caller, String agentId, String reply) {
    JsonObject answer = new JsonObject(reply);
    JsonObject task = answer.getValue("task") instanceof JsonObject t ? t : null;
    if (!tracing.enabled() || task == null || !(task.getValue("traceparent") instanceof String traceparent)) {
      return;
    }
    SpanBuilder builder = tracing.tracer().spanBuilder(CLAIM)
      .setParent(TraceContexts.parent(Optional.of(traceparent)))
      .setSpanKind(SpanKind.INTERNAL)
      .setStartTimestamp(start)
      .setAttribute(AttemptTraces.TASK_ID, String.valueOf(task.getValue("id")))
      .setAttribute(AttemptTraces.NODE_ID, nodeId);
    if (agentId != null) {
      builder.setAttribute(AttemptTraces.AGENT_ID, agentId);
    }
    if (caller.isValid()) {
      builder.addLink(caller, Attributes.empty());
    }
    builder.startSpan().end();
  }
}
