package dev.conclave.agent.internal;

import dev.conclave.agent.ConnectionLostException;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.PackToolTimeoutException;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ExecutePackTool;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/** Pack tool calls waiting for their {@code PackToolResult}. Confined to the client's context. */
final class PackToolCalls {

  private static final Logger LOG = LoggerFactory.getLogger(PackToolCalls.class);

  private record Pending(String toolName, Promise<PackToolResult> result, long timer, GatewayStream stream) {
  }

  private final ClientContext context;
  private final Vertx vertx;
  private final String agentId;
  private final Map<String, Pending> pending = new HashMap<>();

  PackToolCalls(ClientContext context, String agentId) {
    this.context = context;
    this.vertx = context.owner();
    this.agentId = agentId;
  }

  Future<PackToolResult> call(GatewayStream stream, String toolName, String inputJson, Duration timeout) {
    String requestId = UUID.randomUUID().toString();
    Promise<PackToolResult> result = context.promise();
    long timer = vertx.setTimer(Math.max(1, timeout.toMillis()), id -> {
      if (pending.remove(requestId) != null) {
        LOG.warn("pack tool timed out agent={} tool={} request={} timeoutMs={}", agentId, toolName, requestId, timeout.toMillis());
        result.tryFail(new PackToolTimeoutException(toolName, requestId, timeout));
      }
    });
    pending.put(requestId, new Pending(toolName, result, timer, stream));
    LOG.debug("pack tool call agent={} tool={} request={}", agentId, toolName, requestId);
    stream.write(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder()
        .setRequestId(requestId).setToolName(toolName).setInputJson(inputJson)).build())
      .onFailure(err -> complete(requestId, () -> err));
    return result.future();
  }

  void onResult(dev.conclave.proto.coven.PackToolResult r) {
    Pending p = pending.remove(r.getRequestId());
    if (p == null) {
      LOG.info("ignoring a PackToolResult nobody waits for (late or unknown) agent={} request={}", agentId, r.getRequestId());
      return;
    }
    vertx.cancelTimer(p.timer());
    Optional<String> output = r.getResultCase() == dev.conclave.proto.coven.PackToolResult.ResultCase.OUTPUT_JSON
      ? Optional.of(r.getOutputJson()) : Optional.empty();
    Optional<String> error = output.isPresent() ? Optional.empty()
      : Optional.of(r.getResultCase() == dev.conclave.proto.coven.PackToolResult.ResultCase.ERROR
        ? r.getError() : "the gateway sent a result with neither output nor error");
    p.result().tryComplete(new PackToolResult(r.getRequestId(), p.toolName(), output, error));
  }

  /** Fails the calls that went out on {@code stream}: their results can no longer arrive. */
  void streamEnded(GatewayStream stream, Throwable cause) {
    failWhere(p -> p.stream() == stream,
      () -> new ConnectionLostException("the stream to " + stream.endpoint() + " ended before the pack tool answered", cause));
  }

  void failAll(Supplier<Throwable> cause) {
    failWhere(p -> true, cause);
  }

  private void failWhere(java.util.function.Predicate<Pending> which, Supplier<Throwable> cause) {
    List<String> ids = new ArrayList<>();
    pending.forEach((id, p) -> {
      if (which.test(p)) {
        ids.add(id);
      }
    });
    ids.forEach(id -> complete(id, cause));
  }

  private void complete(String requestId, Supplier<Throwable> failure) {
    Pending p = pending.remove(requestId);
    if (p != null) {
      vertx.cancelTimer(p.timer());
      p.result().tryFail(failure.get());
    }
  }
}
