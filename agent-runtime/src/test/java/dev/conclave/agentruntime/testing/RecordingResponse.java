package dev.conclave.agentruntime.testing;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.RequestEndedException;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.ToolState;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link ResponseStream} that records every event as a short line ({@code text:hello},
 * {@code tool_state:t1:RUNNING}, {@code done:…}) and answers approvals with a function, so a test
 * drives the SDK's {@code BackendHandler} and a runtime backend without a gateway.
 */
public final class RecordingResponse implements ResponseStream {

  public final List<String> events = new CopyOnWriteArrayList<>();
  private final Promise<String> cancellation = Promise.promise();
  private final Promise<String> terminal = Promise.promise();
  private final Function<String, Future<ApprovalDecision>> approvals;
  private volatile boolean ended;
  private volatile boolean approveAll;

  public RecordingResponse(Function<String, Future<ApprovalDecision>> approvals) {
    this.approvals = approvals;
  }

  /** Approves every tool. */
  public RecordingResponse() {
    this(id -> Future.succeededFuture(new ApprovalDecision(id, true, false, false)));
  }

  public static IncomingMessage message(String requestId, String thread, String content) {
    return new IncomingMessage(requestId, thread, "tester", content, List.of());
  }

  /** A message of a request traced as {@code trace}. */
  public static IncomingMessage message(String requestId, String thread, String content, dev.conclave.agent.TraceContext trace) {
    return new IncomingMessage(requestId, thread, "tester", content, List.of(), trace);
  }

  /** Completes with the terminal event line. */
  public Future<String> terminal() {
    return terminal.future();
  }

  /** Asks the request to stop, as a CancelRequest would. */
  public void cancel(String reason) {
    cancellation.tryComplete(reason);
  }

  public List<String> startingWith(String prefix) {
    List<String> out = new ArrayList<>();
    for (String e : events) {
      if (e.startsWith(prefix)) {
        out.add(e);
      }
    }
    return out;
  }

  private Future<Void> record(String e) {
    if (ended) {
      return Future.failedFuture(new RequestEndedException("r", "ended"));
    }
    events.add(e);
    return Future.succeededFuture();
  }

  private Future<Void> end(String e) {
    Future<Void> f = record(e);
    if (f.succeeded()) {
      ended = true;
      terminal.tryComplete(e);
    }
    return f;
  }

  @Override public String requestId() { return "r"; }
  @Override public Future<Void> thinking(String status) { return record("thinking:" + status); }
  @Override public Future<Void> text(String chunk) { return record("text:" + chunk); }
  @Override public Future<Void> toolUse(String toolId, String name, String inputJson) { return record("tool_use:" + toolId + ":" + name); }
  @Override public Future<Void> toolResult(String toolId, String output, boolean isError) {
    return record("tool_result:" + toolId + ":" + (isError ? "error:" : "") + output);
  }
  @Override public Future<Void> toolState(String toolId, ToolState state, String detail) { return record("tool_state:" + toolId + ":" + state); }
  @Override public Future<Void> usage(TokenUsage u) { return record("usage:" + u.inputTokens() + "/" + u.outputTokens()); }
  @Override public Future<Void> file(String filename, String mimeType, byte[] data) { return record("file:" + filename); }
  @Override public Future<Void> sessionInit(String sessionId) { return record("session_init:" + sessionId); }
  @Override public Future<Void> sessionOrphaned(String reason) { return record("session_orphaned"); }
  /**
   * As the SDK's request does: once a decision approved all, later approvals of the request are
   * granted at once, marked automatic, without a {@code tool_approval_request}.
   */
  @Override public Future<ApprovalDecision> requestApproval(String toolId, String name, String inputJson) {
    if (approveAll && !ended) {
      return Future.succeededFuture(new ApprovalDecision(toolId, true, true, true));
    }
    return record("approval:" + toolId + ":" + name).compose(v -> approvals.apply(toolId)).onSuccess(d -> {
      if (d.approved() && d.approveAll()) {
        approveAll = true;
      }
    });
  }
  @Override public Future<Void> done(String fullResponse) { return end("done:" + fullResponse); }
  @Override public Future<Void> error(String message) { return end("error:" + message); }
  @Override public Future<Void> cancelled(String reason) { return end("cancelled:" + reason); }
  @Override public boolean isEnded() { return ended; }
  @Override public Future<String> cancellation() { return cancellation.future(); }
}
