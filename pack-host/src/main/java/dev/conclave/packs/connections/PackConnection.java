package dev.conclave.packs.connections;

import dev.conclave.contract.ExecuteToolRequestTraces;
import dev.conclave.packs.registry.PackRecord;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackManifest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One pack's {@code Register} stream on this node: tool calls go out on it as {@code
 * ExecuteToolRequest}s and wait for the pack's {@code ToolResult}, each with its own timeout. Every
 * call ends exactly once: with the result, the timeout, or the stream's end. All state belongs to
 * the stream's context; callers from elsewhere hop onto it. A call's trace context goes out with it, in
 * the field conclave_trace.proto adds to {@code ExecuteToolRequest}, so the pack's own work joins the
 * call's trace; a pack that does not know the field skips it.
 */
public final class PackConnection {

  private static final Logger LOG = LoggerFactory.getLogger(PackConnection.class);

  /** Calls one pack may have waiting; more are refused at once instead of queueing without bound. */
  static final int MAX_PENDING = 1024;
  /** Finished call ids remembered, to tell a late result from an unknown one. */
  static final int RECENT = 4096;

  /** How a result from the pack was taken. */
  public enum Delivery { ACCEPTED, LATE, UNKNOWN }

  private record Pending(Promise<ToolOutcome> outcome, long timer, String toolName) {
  }

  private final Vertx vertx;
  private final Context context;
  private final PackRecord record;
  private final PackManifest manifest;
  private final GrpcServerResponse<PackManifest, ExecuteToolRequest> stream;
  private final Consumer<PackConnection> onClose;
  private final Map<String, Pending> pending = new HashMap<>();
  private final Map<String, Boolean> recent = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > RECENT;
    }
  };
  private boolean closed;

  public PackConnection(Vertx vertx, Context context, PackRecord record, PackManifest manifest,
                        GrpcServerResponse<PackManifest, ExecuteToolRequest> stream, Consumer<PackConnection> onClose) {
    this.vertx = vertx;
    this.context = context;
    this.record = record;
    this.manifest = manifest;
    this.stream = stream;
    this.onClose = onClose;
  }

  /**
   * Sends one call to the pack and waits up to {@code timeout} for its result. {@code traceContext}
   * (W3C header name to value: the pack host's span of the call) goes with it; empty outside a trace,
   * and then the request is the Coven one byte for byte.
   */
  public Future<ToolOutcome> call(ToolCall call, Duration timeout, Map<String, String> traceContext) {
    Promise<ToolOutcome> outcome = Promise.promise();
    context.runOnContext(v -> {
      if (closed) {
        outcome.complete(gone(call.toolName()));
        return;
      }
      if (pending.size() >= MAX_PENDING || stream.writeQueueFull()) {
        outcome.complete(ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE,
          "pack '" + record.packId() + "' is busy (" + pending.size() + " calls waiting); retry later"));
        return;
      }
      String id = call.callId();
      long timer = vertx.setTimer(timeout.toMillis(), t -> {
        Pending p = pending.remove(id);
        if (p != null) {
          recent.put(id, Boolean.TRUE);
          p.outcome().tryComplete(ToolOutcome.failed(ToolOutcome.Status.TIMEOUT,
            "tool '" + call.toolName() + "' of pack '" + record.packId() + "' did not answer within " + timeout.toSeconds() + " s"));
        }
      });
      pending.put(id, new Pending(outcome, timer, call.toolName()));
      try {
        stream.write(ExecuteToolRequestTraces.attach(ExecuteToolRequest.newBuilder()
          .setRequestId(id).setToolName(call.toolName()).setInputJson(call.inputJson()), traceContext).build());
      } catch (RuntimeException streamGone) {
        endedByPack("stream gone: " + streamGone.getMessage());
      }
    });
    return outcome.future();
  }

  /** A result from the pack; the caller checked that it comes from this connection's principal. */
  public Future<Delivery> complete(ExecuteToolResponse response) {
    Promise<Delivery> delivery = Promise.promise();
    context.runOnContext(v -> {
      Pending p = pending.remove(response.getRequestId());
      if (p == null) {
        delivery.complete(recent.containsKey(response.getRequestId()) ? Delivery.LATE : Delivery.UNKNOWN);
        return;
      }
      vertx.cancelTimer(p.timer());
      recent.put(response.getRequestId(), Boolean.TRUE);
      p.outcome().tryComplete(response.getResultCase() == ExecuteToolResponse.ResultCase.ERROR
        ? ToolOutcome.failed(ToolOutcome.Status.TOOL_ERROR, response.getError())
        : ToolOutcome.ok(response.getResultCase() == ExecuteToolResponse.ResultCase.OUTPUT_JSON ? response.getOutputJson() : ""));
      delivery.complete(Delivery.ACCEPTED);
    });
    return delivery.future();
  }

  /** True when a call with this id is waiting here. */
  public Future<Boolean> waitingFor(String requestId) {
    Promise<Boolean> answer = Promise.promise();
    context.runOnContext(v -> answer.complete(pending.containsKey(requestId) || recent.containsKey(requestId)));
    return answer.future();
  }

  /**
   * Ends the stream (with {@code status}, or normally when null) and every waiting call with a
   * "pack gone" outcome, and releases what the pack registered. Idempotent.
   */
  public void close(String reason, ConclaveException status) {
    end(reason, status, true);
  }

  /**
   * The pack's side ended the stream (a cancel, a reset, its connection closed): the same, without
   * writing to a stream that is no longer there.
   */
  public void endedByPack(String reason) {
    end(reason, null, false);
  }

  private void end(String reason, ConclaveException status, boolean write) {
    context.runOnContext(v -> {
      if (closed) {
        return;
      }
      closed = true;
      try {
        pending.forEach((id, p) -> {
          vertx.cancelTimer(p.timer());
          p.outcome().tryComplete(ToolOutcome.failed(ToolOutcome.Status.PACK_GONE,
            "pack '" + record.packId() + "' disconnected while running tool '" + p.toolName() + "' (" + reason + ")"));
        });
        pending.clear();
        if (write) {
          endStream(status);
        }
      } finally {
        // whatever ending the stream threw, the pack's tools go
        onClose.accept(this);
      }
    });
  }

  private void endStream(ConclaveException status) {
    try {
      if (status != null) {
        dev.conclave.platform.server.GrpcFailures.end(stream, status);
      } else {
        stream.end();
      }
    } catch (RuntimeException alreadyGone) {
      // the pack reset the stream or closed its connection first (Vert.x 5.0.7 then throws an
      // IllegalStateException, or a NullPointerException from the closed HTTP/2 stream): nothing to tell it
      LOG.debug("pack stream already gone pack={} connection={} error={}", record.packId(), record.connection(), alreadyGone.toString());
    }
  }

  public PackRecord record() {
    return record;
  }

  public PackManifest manifest() {
    return manifest;
  }

  public String packId() {
    return record.packId();
  }

  public String connectionId() {
    return record.connection();
  }

  private ToolOutcome gone(String toolName) {
    return ToolOutcome.failed(ToolOutcome.Status.PACK_GONE, "pack '" + record.packId() + "' is no longer connected, so tool '"
      + toolName + "' cannot run");
  }
}
