package dev.conclave.gateway.tools;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.packs.PackNodeOps;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.packs.ToolScope;
import dev.conclave.platform.packs.schema.Schemas;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Runs a call of one of the gateway's own tools here, by the rules the pack host applies to every
 * tool (platform.packs.ToolScope, platform.packs.schema.Schemas): the caller's capabilities, the
 * input against the tool's schema, the tool's timeout, and exactly one outcome, with the same
 * messages. Traced, counted and recorded as the pack host's calls are.
 */
public final class GatewayToolRunner {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayToolRunner.class);

  private final Vertx vertx;
  private final String nodeId;
  private final MeterRegistry metrics;

  private final Clock clock;

  public GatewayToolRunner(Vertx vertx, String nodeId, MeterRegistry metrics, Clock clock) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Runs {@code call} of {@code tool}; never fails. {@code traceContext}: the caller's, when it came over the bus. */
  public Future<ToolOutcome> execute(GatewayTool tool, ToolCall call, Optional<String> traceContext) {
    Instant started = clock.instant();
    long t0 = System.nanoTime();
    Span span = ToolCallSpans.start(vertx, call, tool.packId(), nodeId, traceContext);
    Future<ToolOutcome> outcome;
    // current while the tool starts: what it waits for (ask_user's person) joins the trace
    try (Scope ignored = span.makeCurrent()) {
      outcome = checked(tool, call);
    }
    return outcome.onSuccess(o -> {
      ToolCallSpans.end(span, o);
      metrics.counter(MetricNames.PACKS_TOOL_CALLS, "outcome", o.status().wire(), "origin", call.origin()).increment();
      long took = System.nanoTime() - t0;
      metrics.timer(MetricNames.PACKS_TOOL_CALL_DURATION, "kind", "builtin").record(took, TimeUnit.NANOSECONDS);
      // recorded with every other call by a pack host (packs.tool_calls is its store); nothing waits for it
      vertx.eventBus().send(Addresses.PACK_CALL_RECORDS, PackNodeOps.callRecord(call, tool.packId(), nodeId, o, started, Duration.ofNanos(took)));
    });
  }

  private Future<ToolOutcome> checked(GatewayTool tool, ToolCall call) {
    if (!ToolScope.allows(call.capabilities(), tool.definition())) {
      return Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.FORBIDDEN, "tool '" + call.toolName() + "' requires capabilities "
        + new TreeSet<>(tool.definition().getRequiredCapabilitiesList()) + "; agent '" + call.agentId() + "' registered with "
        + new TreeSet<>(call.capabilities())));
    }
    Map<String, Object> input;
    try {
      input = Schemas.parseObject(call.inputJson());
    } catch (IllegalArgumentException e) {
      return Future.succeededFuture(invalidInput(call, "input_json " + e.getMessage()));
    }
    Optional<String> mismatch = Schemas.checkInput(tool.definition().getInputSchemaJson(), input);
    if (mismatch.isPresent()) {
      return Future.succeededFuture(invalidInput(call, mismatch.get()));
    }
    return run(tool, call, new JsonObject(input), ToolScope.timeout(tool.definition()));
  }

  private Future<ToolOutcome> run(GatewayTool tool, ToolCall call, JsonObject input, Duration timeout) {
    Promise<ToolOutcome> outcome = Promise.promise();
    long timer = vertx.setTimer(timeout.toMillis(), t -> outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.TIMEOUT,
      "tool '" + call.toolName() + "' did not finish within " + timeout.toSeconds() + " s")));
    Future<String> result;
    try {
      result = tool.run(call, input);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        outcome.tryComplete(ToolOutcome.ok(ar.result()));
      } else if (ar.cause() instanceof ToolError error) {
        outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.TOOL_ERROR, error.getMessage()));
      } else {
        LOG.error("built-in tool failed tool={} agent={} call={}", call.toolName(), call.agentId(), call.callId(), ar.cause());
        outcome.tryComplete(ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE,
          "tool '" + call.toolName() + "' failed on the server (call " + call.callId() + "); retry later"));
      }
    });
    return outcome.future();
  }

  private static ToolOutcome invalidInput(ToolCall call, String why) {
    return ToolOutcome.failed(ToolOutcome.Status.INVALID_INPUT, "invalid input for tool '" + call.toolName() + "': " + why);
  }
}
