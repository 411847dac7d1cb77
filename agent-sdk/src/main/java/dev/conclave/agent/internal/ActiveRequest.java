package dev.conclave.agent.internal;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.ConnectionLostException;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.RequestEndedException;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.ToolState;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.FileData;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.SessionInit;
import dev.conclave.proto.coven.SessionOrphaned;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.ToolApprovalResponse;
import dev.conclave.proto.coven.ToolResult;
import dev.conclave.proto.coven.ToolStateUpdate;
import dev.conclave.proto.coven.ToolUse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The response stream of the one request in progress: stamps its request id on every event,
 * enforces exactly one terminal event, and correlates tool approvals. State is confined to the
 * client's context; the public methods hop onto it.
 */
final class ActiveRequest implements ResponseStream {

  private static final Logger LOG = LoggerFactory.getLogger(ActiveRequest.class);
  /** Enough for any chat answer; beyond it the automatic {@code done} carries a truncated text. */
  private static final int MAX_COLLECTED_TEXT = 1 << 20;

  private final ClientContext context;
  private final IncomingMessage message;
  private final GatewayStream stream;
  private final String logContext;
  private final Map<String, Promise<ApprovalDecision>> approvals = new LinkedHashMap<>();
  private final Promise<String> cancellation;
  private final Promise<Void> ended;
  private final StringBuilder collectedText = new StringBuilder();
  private String endedAs;
  private boolean abandoned;
  private boolean approveAll;

  ActiveRequest(ClientContext context, IncomingMessage message, GatewayStream stream, String agentId) {
    this.context = context;
    this.message = message;
    this.stream = stream;
    this.logContext = "agent=" + agentId + " request=" + message.requestId();
    this.cancellation = context.promise();
    this.ended = context.promise();
  }

  IncomingMessage message() {
    return message;
  }

  GatewayStream stream() {
    return stream;
  }

  String logContext() {
    return logContext;
  }

  /** Completes when the request got its terminal event or was abandoned. */
  Future<Void> ended() {
    return ended.future();
  }

  String collectedText() {
    return collectedText.toString();
  }

  @Override
  public String requestId() {
    return message.requestId();
  }

  @Override
  public boolean isEnded() {
    return endedAs != null;
  }

  @Override
  public Future<String> cancellation() {
    return cancellation.future();
  }

  @Override
  public Future<Void> thinking(String status) {
    return emit(MessageResponse.newBuilder().setThinking(Protos.str(status)), "thinking", false);
  }

  @Override
  public Future<Void> text(String chunk) {
    String c = Protos.str(chunk);
    return OnContext.call(context, () -> {
      if (endedAs == null && collectedText.length() + c.length() <= MAX_COLLECTED_TEXT) {
        collectedText.append(c);
      }
      return emit(MessageResponse.newBuilder().setText(c), "text", false);
    });
  }

  @Override
  public Future<Void> toolUse(String toolId, String name, String inputJson) {
    return emit(MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder()
      .setId(Protos.str(toolId)).setName(Protos.str(name)).setInputJson(Protos.str(inputJson))), "tool_use", false);
  }

  @Override
  public Future<Void> toolResult(String toolId, String output, boolean isError) {
    return emit(MessageResponse.newBuilder().setToolResult(ToolResult.newBuilder()
      .setId(Protos.str(toolId)).setOutput(Protos.str(output)).setIsError(isError)), "tool_result", false);
  }

  @Override
  public Future<Void> toolState(String toolId, ToolState state, String detail) {
    ToolStateUpdate.Builder update = ToolStateUpdate.newBuilder().setId(Protos.str(toolId)).setState(Protos.toolState(state));
    if (detail != null) {
      update.setDetail(detail);
    }
    return emit(MessageResponse.newBuilder().setToolState(update), "tool_state", false);
  }

  @Override
  public Future<Void> usage(TokenUsage usage) {
    return emit(MessageResponse.newBuilder().setUsage(Protos.usage(usage)), "usage", false);
  }

  @Override
  public Future<Void> file(String filename, String mimeType, byte[] data) {
    return emit(MessageResponse.newBuilder().setFile(FileData.newBuilder()
      .setFilename(Protos.str(filename)).setMimeType(Protos.str(mimeType)).setData(Protos.bytes(data))), "file", false);
  }

  @Override
  public Future<Void> sessionInit(String sessionId) {
    return emit(MessageResponse.newBuilder().setSessionInit(SessionInit.newBuilder().setSessionId(Protos.str(sessionId))),
      "session_init", false);
  }

  @Override
  public Future<Void> sessionOrphaned(String reason) {
    return emit(MessageResponse.newBuilder().setSessionOrphaned(SessionOrphaned.newBuilder().setReason(Protos.str(reason))),
      "session_orphaned", false);
  }

  @Override
  public Future<ApprovalDecision> requestApproval(String toolId, String name, String inputJson) {
    String id = Protos.str(toolId);
    return OnContext.call(context, () -> {
      if (endedAs != null) {
        return Future.failedFuture(endedFailure());
      }
      if (approveAll) {
        return Future.succeededFuture(new ApprovalDecision(id, true, true, true));
      }
      if (approvals.containsKey(id)) {
        return Future.failedFuture(new IllegalStateException("an approval for tool " + id + " is already pending"));
      }
      Promise<ApprovalDecision> decision = context.promise();
      approvals.put(id, decision);
      return emit(MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder()
          .setId(id).setName(Protos.str(name)).setInputJson(Protos.str(inputJson))), "tool_approval_request", false)
        .transform(ar -> {
          if (ar.failed()) {
            approvals.remove(id);
            return Future.failedFuture(ar.cause());
          }
          return decision.future();
        });
    });
  }

  @Override
  public Future<Void> done(String fullResponse) {
    return emit(MessageResponse.newBuilder().setDone(Done.newBuilder().setFullResponse(Protos.str(fullResponse))), "done", true);
  }

  @Override
  public Future<Void> error(String message) {
    return emit(MessageResponse.newBuilder().setError(Protos.str(message)), "error", true);
  }

  @Override
  public Future<Void> cancelled(String reason) {
    return emit(MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(Protos.str(reason))), "cancelled", true);
  }

  /** Routes a {@code ToolApprovalResponse}; false when no approval of that id is pending. */
  boolean onApprovalResponse(ToolApprovalResponse response) {
    Promise<ApprovalDecision> decision = approvals.remove(response.getId());
    if (decision == null) {
      return false;
    }
    boolean all = response.getApproved() && response.getApproveAll();
    List<Map.Entry<String, Promise<ApprovalDecision>>> open = List.of();
    if (all) {
      // set before completing anything: completion runs the handler's next step right away
      approveAll = true;
      // "approve all remaining tools": questions still open in this request are answered too
      open = new ArrayList<>(approvals.entrySet());
      approvals.clear();
    }
    decision.tryComplete(new ApprovalDecision(response.getId(), response.getApproved(), all, false));
    open.forEach(e -> e.getValue().tryComplete(new ApprovalDecision(e.getKey(), true, true, true)));
    return true;
  }

  /** The reason the request was asked to stop, if it was. */
  String cancellationReason() {
    return cancellation.future().isComplete() ? cancellation.future().result() : null;
  }

  /** Marks that someone asked the request to stop; true the first time. */
  boolean requestCancellation(String reason) {
    return cancellation.tryComplete(reason);
  }

  /** The stream carrying this request is gone: nothing more can be sent for it. */
  void abandon(String reason) {
    if (endedAs != null) {
      return;
    }
    abandoned = true;
    finish("abandoned (" + reason + ")", new ConnectionLostException("request " + requestId() + " lost its stream: " + reason, null));
    cancellation.tryComplete(reason);
  }

  private Future<Void> emit(MessageResponse.Builder event, String kind, boolean terminal) {
    return OnContext.call(context, () -> {
      if (endedAs != null) {
        if (abandoned || cancellation.future().isComplete()) {
          LOG.debug("event dropped after the request ended {} event={} ended={}", logContext, kind, endedAs);
        } else {
          LOG.warn("event dropped after the request ended {} event={} ended={}", logContext, kind, endedAs);
        }
        return Future.failedFuture(endedFailure());
      }
      if (terminal) {
        finish(kind, new RequestEndedException(requestId(), kind));
        LOG.info("request ended {} outcome={}", logContext, kind);
      }
      AgentMessage out = AgentMessage.newBuilder().setResponse(event.setRequestId(requestId())).build();
      return stream.write(out);
    });
  }

  private void finish(String how, RuntimeException approvalFailure) {
    endedAs = how;
    List<Promise<ApprovalDecision>> open = new ArrayList<>(approvals.values());
    approvals.clear();
    open.forEach(p -> p.tryFail(approvalFailure));
    ended.tryComplete();
  }

  private RuntimeException endedFailure() {
    return abandoned
      ? new ConnectionLostException("request " + requestId() + " " + endedAs, null)
      : new RequestEndedException(requestId(), endedAs);
  }
}
