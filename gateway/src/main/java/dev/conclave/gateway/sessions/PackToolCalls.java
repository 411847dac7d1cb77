package dev.conclave.gateway.sessions;

import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ServerMessage;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One session's pack tool calls: each {@code ExecutePackTool} goes to the pack host and its one
 * {@code PackToolResult} comes back with the agent's own request_id. Calls run beside the agent's
 * other traffic, never in its way. State lives on the session's context.
 */
final class PackToolCalls {

  /** Calls one agent may have running at once; more are answered with an error at once. */
  static final int MAX_IN_FLIGHT = 64;

  private final SessionView session;
  private final AgentLink link;
  private final SessionLoop loop;
  private final io.vertx.core.Vertx vertx;
  private final PackTools packTools;
  private final SessionMetrics metrics;
  private final Set<String> running = new HashSet<>();

  PackToolCalls(SessionView session, AgentLink link, SessionLoop loop, io.vertx.core.Vertx vertx, PackTools packTools,
                SessionMetrics metrics) {
    this.session = session;
    this.link = link;
    this.loop = loop;
    this.vertx = vertx;
    this.packTools = packTools;
    this.metrics = metrics;
  }

  /** Runs the agent's tool call; in a child span of {@code requestSpan} (the request in flight's), when traced. */
  void execute(ExecutePackTool request, io.opentelemetry.api.trace.Span requestSpan) {
    String id = request.getRequestId();
    if (id.isEmpty()) {
      answer(id, ToolOutcome.failed(ToolOutcome.Status.INVALID_INPUT, "ExecutePackTool.request_id is required"));
      return;
    }
    if (request.getToolName().isEmpty()) {
      answer(id, ToolOutcome.failed(ToolOutcome.Status.INVALID_INPUT, "ExecutePackTool.tool_name is required"));
      return;
    }
    if (running.contains(id)) {
      metrics.dropped(SessionMetrics.DropReason.DUPLICATE_TOOL_CALL, session.agentId(), id);
      return;
    }
    if (running.size() >= MAX_IN_FLIGHT) {
      answer(id, ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE,
        "too many tool calls running (" + MAX_IN_FLIGHT + "); wait for a result before starting another"));
      return;
    }
    running.add(id);
    Registration.Registered r = session.registration();
    ToolCall call = new ToolCall(UUID.randomUUID().toString(), id, r.agent().agentId(), r.principal().id(),
      Set.copyOf(r.agent().capabilities()), request.getToolName(), request.getInputJson(), ToolCall.ORIGIN_AGENT_STREAM);
    // current while the call is sent: the event bus carries the trace to the node that runs the tool
    RequestSpans.child(vertx, requestSpan, RequestSpans.TOOL_CALL,
      Map.of(RequestSpans.TOOL_NAME, request.getToolName(), RequestSpans.AGENT_ID, r.agent().agentId()),
      () -> packTools.execute(call)).onComplete(ar -> loop.run(() -> {
      running.remove(id);
      answer(id, ar.succeeded() ? ar.result()
        : ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE, "tool '" + request.getToolName() + "' could not run: " + ar.cause().getMessage()));
    }));
  }

  private void answer(String requestId, ToolOutcome outcome) {
    PackToolResult.Builder result = PackToolResult.newBuilder().setRequestId(requestId);
    if (outcome.succeeded()) {
      result.setOutputJson(outcome.output());
    } else {
      result.setError(outcome.error());
    }
    link.send(ServerMessage.newBuilder().setPackToolResult(result).build());
  }
}
