package dev.conclave.agent.internal.pack;

import dev.conclave.agent.Endpoint;
import dev.conclave.agent.TraceContext;
import dev.conclave.agent.internal.CurrentTrace;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.agent.pack.PackToolException;
import dev.conclave.agent.pack.ToolInvocation;
import dev.conclave.contract.ExecuteToolRequestTraces;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs tool handlers for the calls the gateway sends, at most {@code maxConcurrentCalls} at once,
 * and turns each outcome into an {@code ExecuteToolResponse} for the {@link ResultSender}. A call
 * beyond the limit is answered {@code "pack <id> is busy"} at once. A handler still running a while
 * after the gateway gave up on its call frees its slot, and its late outcome is dropped. Confined to
 * the pack client's event loop; handlers run there too, with the call's trace context (the pack
 * host's span of it) as OpenTelemetry's current context when the API is on the class path.
 */
final class ToolRunner {

  private static final Logger LOG = LoggerFactory.getLogger(ToolRunner.class);
  /** The gateway's timeout for a tool that names none. */
  static final Duration DEFAULT_TOOL_TIMEOUT = Duration.ofSeconds(30);
  /** How long past the gateway's timeout a handler keeps its slot, so its result still gets a chance. */
  static final Duration SLOT_GRACE = Duration.ofSeconds(5);

  private record Running(String toolName, Endpoint origin, long timer) {
  }

  private final Vertx vertx;
  private final Context context;
  private final Thread loop;
  private final PackConfig config;
  private final ResultSender sender;
  private final Map<String, PackTool> tools = new HashMap<>();
  private final Map<String, Running> running = new HashMap<>();
  private boolean closed;

  /** Must be created on the pack client's event loop, which it remembers. */
  ToolRunner(Vertx vertx, Context context, PackConfig config, ResultSender sender) {
    this.vertx = vertx;
    this.context = context;
    this.loop = Thread.currentThread();
    this.config = config;
    this.sender = sender;
    config.tools().forEach(t -> tools.put(t.name(), t));
  }

  void accept(Endpoint origin, ExecuteToolRequest request) {
    String id = request.getRequestId();
    String name = request.getToolName();
    String log = "pack=" + config.packId() + " tool=" + name + " request=" + id;
    if (closed) {
      return;
    }
    if (id.isEmpty()) {
      LOG.warn("ignoring a call without request id: nobody could receive its result {}", log);
      return;
    }
    PackTool tool = tools.get(name);
    if (tool == null) {
      LOG.warn("the gateway called a tool this pack does not offer {}", log);
      sender.send(origin, name, error(id, "unknown tool " + name));
      return;
    }
    if (running.containsKey(id)) {
      LOG.warn("ignoring a repeated call that is still running {}", log);
      return;
    }
    if (running.size() >= config.maxConcurrentCalls()) {
      LOG.warn("refusing a call: {} calls already running {}", running.size(), log);
      sender.send(origin, name, error(id, "pack " + config.packId() + " is busy"));
      return;
    }
    Duration timeout = tool.timeoutSeconds() == 0 ? DEFAULT_TOOL_TIMEOUT : Duration.ofSeconds(tool.timeoutSeconds());
    long timer = vertx.setTimer(timeout.plus(SLOT_GRACE).toMillis(), t -> expire(id, timeout));
    running.put(id, new Running(name, origin, timer));
    LOG.debug("running {} running={}", log, running.size());
    TraceContext trace = TraceContext.of(ExecuteToolRequestTraces.of(request));
    invoke(tool, new ToolInvocation(id, name, request.getInputJson(), timeout, trace))
      .onComplete(ar -> onLoop(() -> finish(id, ar)));
  }

  /** Drops every running call: their results will not be sent. */
  void close() {
    closed = true;
    if (!running.isEmpty()) {
      LOG.info("dropping the results of calls still running pack={} count={}", config.packId(), running.size());
    }
    running.values().forEach(r -> vertx.cancelTimer(r.timer()));
    running.clear();
  }

  private static Future<String> invoke(PackTool tool, ToolInvocation call) {
    try {
      Future<String> f = CurrentTrace.around(call.traceContext(), () -> tool.handler().handle(call));
      return f != null ? f : Future.failedFuture(new IllegalStateException("the handler returned null instead of a future"));
    } catch (Throwable t) {
      return Future.failedFuture(t);
    }
  }

  private void finish(String id, AsyncResult<String> outcome) {
    Running r = running.remove(id);
    if (r == null) {
      LOG.debug("dropping a result nobody waits for any more (timed out or closed) pack={} request={}", config.packId(), id);
      return;
    }
    vertx.cancelTimer(r.timer());
    ExecuteToolResponse response = outcome.succeeded()
      ? output(id, r.toolName(), outcome.result())
      : error(id, failureMessage(r.toolName(), id, outcome.cause()));
    sender.send(r.origin(), r.toolName(), response);
  }

  private void expire(String id, Duration timeout) {
    Running r = running.remove(id);
    if (r == null) {
      return;
    }
    LOG.warn("tool still running {} s after the gateway's timeout; freeing its slot and dropping its result pack={} tool={} request={}",
      SLOT_GRACE.toSeconds(), config.packId(), r.toolName(), id);
    // the gateway has most likely answered the agent already; this reaches it if it waits longer
    sender.send(r.origin(), r.toolName(), error(id, "tool " + r.toolName() + " timed out after " + timeout.toSeconds() + " s"));
  }

  private ExecuteToolResponse output(String id, String toolName, String json) {
    String out = json == null ? "{}" : json;
    try {
      Json.decodeValue(out);
    } catch (DecodeException e) {
      LOG.warn("tool output is not JSON; reporting an error instead pack={} tool={} request={}", config.packId(), toolName, id);
      return error(id, "tool " + toolName + " failed: its output is not valid JSON");
    }
    return ExecuteToolResponse.newBuilder().setRequestId(id).setOutputJson(out).build();
  }

  private String failureMessage(String toolName, String id, Throwable failure) {
    if (failure instanceof PackToolException) {
      String m = failure.getMessage();
      LOG.debug("tool reported an error pack={} tool={} request={} error={}", config.packId(), toolName, id, m);
      return m == null || m.isBlank() ? "tool " + toolName + " failed" : m;
    }
    LOG.warn("tool failed pack={} tool={} request={}", config.packId(), toolName, id, failure);
    return "tool " + toolName + " failed: " + PackWire.describe(failure);
  }

  private static ExecuteToolResponse error(String id, String message) {
    return ExecuteToolResponse.newBuilder().setRequestId(id).setError(message).build();
  }

  /** Runs {@code action} on the event loop: handlers may complete their futures on any thread. */
  private void onLoop(Runnable action) {
    if (Thread.currentThread() == loop) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
