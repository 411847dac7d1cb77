package dev.conclave.packs.dispatch;

import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.builtin.Builtins;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolFailure;
import dev.conclave.packs.connections.LocalPacks;
import dev.conclave.platform.packs.schema.Schemas;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.packs.store.ToolCallLog;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolEntry;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.packs.ToolScope;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Runs tool calls on this pack-host node: finds the tool, checks the caller's capabilities and the
 * input against the tool's schema, runs a built-in here or hands the call to the pack's stream,
 * bounds it by the tool's timeout, and records how it ended. Every call gets exactly one outcome.
 */
public final class ToolDispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(ToolDispatcher.class);

  private final Vertx vertx;
  private final String nodeId;
  private final ToolRegistry registry;
  private final LocalPacks local;
  private final Builtins builtins;
  private final ToolCallLog log;
  private final MeterRegistry metrics;
  private final Clock clock;

  public ToolDispatcher(Vertx vertx, String nodeId, ToolRegistry registry, LocalPacks local, Builtins builtins, ToolCallLog log,
                        MeterRegistry metrics, Clock clock) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.registry = registry;
    this.local = local;
    this.builtins = builtins;
    this.log = log;
    this.metrics = metrics;
    this.clock = clock;
    // the series the dashboards and alert rules read exist from the start, at 0, so that a rate over
    // them is 0 rather than absent before the first call (k8s/monitoring/)
    for (String origin : List.of(ToolCall.ORIGIN_AGENT_STREAM, ToolCall.ORIGIN_MCP)) {
      metrics.counter(MetricNames.PACKS_TOOL_CALLS, "outcome", ToolOutcome.Status.OK.wire(), "origin", origin);
    }
    for (String kind : List.of("builtin", "pack")) {
      metrics.timer(MetricNames.PACKS_TOOL_CALL_DURATION, "kind", kind);
    }
  }

  /** Runs a call outside any trace. */
  public Future<ToolOutcome> execute(ToolCall call) {
    return execute(call, Optional.empty());
  }

  /**
   * Runs a call; traced as {@link RequestSpans#PACK_CALL}, a child of the current span (the event
   * bus's, when it carried the caller's trace) or else of {@code traceContext}, the caller's.
   */
  public Future<ToolOutcome> execute(ToolCall call, Optional<String> traceContext) {
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    String[] packId = {""};
    Span span = PackCallSpans.start(vertx, call, nodeId, traceContext);
    return registry.lookup(call.toolName())
      .compose(entry -> {
        entry.ifPresent(e -> packId[0] = e.packId());
        entry.ifPresent(e -> span.setAttribute(RequestSpans.PACK_ID, e.packId()));
        if (!span.getSpanContext().isValid()) {
          return run(call, entry, Map.of());
        }
        // current while the tool starts: what a built-in sends or waits for (ask_user) joins the trace;
        // a remote pack gets the span's context with the call, for its own work to join it
        try (Scope ignored = span.makeCurrent()) {
          return run(call, entry, TraceContexts.of(span));
        }
      })
      .recover(err -> Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE,
        "tool '" + call.toolName() + "' could not run: the tool registry is unavailable right now; retry")))
      .onSuccess(outcome -> {
        PackCallSpans.end(span, outcome);
        finished(call, packId[0], outcome, started, System.nanoTime() - t0);
      });
  }

  private Future<ToolOutcome> run(ToolCall call, Optional<ToolEntry> found, Map<String, String> traceContext) {
    if (found.isEmpty()) {
      return Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.UNKNOWN_TOOL,
        "unknown tool '" + call.toolName() + "': no pack or built-in provides it"));
    }
    ToolEntry entry = found.get();
    if (!ToolScope.allows(call.capabilities(), entry.definition())) {
      return Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.FORBIDDEN, "tool '" + call.toolName() + "' requires capabilities "
        + new TreeSet<>(entry.definition().getRequiredCapabilitiesList()) + "; agent '" + call.agentId() + "' registered with "
        + new TreeSet<>(call.capabilities())));
    }
    Map<String, Object> input;
    try {
      input = Schemas.parseObject(call.inputJson());
    } catch (IllegalArgumentException e) {
      return Future.succeededFuture(invalidInput(call, "input_json " + e.getMessage()));
    }
    Optional<String> mismatch = Schemas.checkInput(entry.definition().getInputSchemaJson(), input);
    if (mismatch.isPresent()) {
      return Future.succeededFuture(invalidInput(call, mismatch.get()));
    }
    Duration timeout = ToolScope.timeout(entry.definition());
    if (entry.builtin()) {
      return builtins.tool(call.toolName())
        .map(tool -> runBuiltin(tool, call, new JsonObject(input), timeout))
        .orElseGet(() -> Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.UNKNOWN_TOOL,
          "built-in tool '" + call.toolName() + "' is not available on this node (a newer or older Conclave version defined it)")));
    }
    return local.get(entry.connection())
      .map(connection -> connection.call(call, timeout, traceContext))
      .orElseGet(() -> Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.PACK_GONE,
        "pack '" + entry.packId() + "' is no longer connected, so tool '" + call.toolName() + "' cannot run")));
  }

  private Future<ToolOutcome> runBuiltin(BuiltinTool tool, ToolCall call, JsonObject input, Duration timeout) {
    Promise<ToolOutcome> outcome = Promise.promise();
    long timer = vertx.setTimer(timeout.toMillis(), t -> outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.TIMEOUT,
      "tool '" + call.toolName() + "' did not finish within " + timeout.toSeconds() + " s")));
    Future<String> result;
    try {
      result = tool.run(new ToolCaller(call.agentId(), call.principalId()), input);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        outcome.tryComplete(ToolOutcome.ok(ar.result()));
      } else if (ar.cause() instanceof ToolFailure failure) {
        outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.TOOL_ERROR, failure.getMessage()));
      } else {
        LOG.error("built-in tool failed tool={} agent={} call={}", call.toolName(), call.agentId(), call.callId(), ar.cause());
        outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE,
          "tool '" + call.toolName() + "' failed on the server (call " + call.callId() + "); retry later"));
      }
    });
    return outcome.future();
  }

  private void finished(ToolCall call, String packId, ToolOutcome outcome, Instant started, long nanos) {
    metrics.counter(MetricNames.PACKS_TOOL_CALLS, "outcome", outcome.status().wire(), "origin", call.origin()).increment();
    metrics.timer(MetricNames.PACKS_TOOL_CALL_DURATION, "kind", packId.startsWith("builtin:") ? "builtin" : "pack")
      .record(nanos, TimeUnit.NANOSECONDS);
    log.record(call, packId, nodeId, outcome, started, Duration.ofNanos(nanos));
  }

  private static ToolOutcome invalidInput(ToolCall call, String why) {
    return ToolOutcome.failed(ToolOutcome.Status.INVALID_INPUT, "invalid input for tool '" + call.toolName() + "': " + why);
  }
}
