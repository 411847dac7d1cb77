package dev.conclave.agentruntime.swarm;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.ToolState;
import io.vertx.core.Future;

/**
 * The response of a swarm task's request: every event goes to the gateway as it would, and its
 * {@link TaskRun} sees it on the way (tools announced, finished and refused, text, the answer, the
 * end). Its cancellation is the run's: the gateway's cancel, or the run stopping itself (deadline,
 * release, shutdown), which the backend watches the same way.
 */
final class TaskResponse implements ResponseStream {

  private final ResponseStream out;
  private final TaskRun run;

  TaskResponse(ResponseStream out, TaskRun run) {
    this.out = out;
    this.run = run;
    out.cancellation().onSuccess(run::cancelledFromOutside);
  }

  @Override
  public String requestId() {
    return out.requestId();
  }

  @Override
  public Future<Void> thinking(String status) {
    run.thinking();
    return out.thinking(status);
  }

  @Override
  public Future<Void> text(String chunk) {
    run.text(chunk);
    return out.text(chunk);
  }

  @Override
  public Future<Void> toolUse(String toolId, String name, String inputJson) {
    run.toolAnnounced(toolId, name, inputJson);
    return out.toolUse(toolId, name, inputJson);
  }

  @Override
  public Future<Void> toolResult(String toolId, String output, boolean isError) {
    run.toolFinished(toolId, isError);
    return out.toolResult(toolId, output, isError);
  }

  @Override
  public Future<Void> toolState(String toolId, ToolState state, String detail) {
    if (state == ToolState.DENIED || state == ToolState.TIMEOUT) {
      run.toolRefused(toolId, state, detail);
    }
    return out.toolState(toolId, state, detail);
  }

  @Override
  public Future<Void> usage(TokenUsage usage) {
    return out.usage(usage);
  }

  @Override
  public Future<Void> file(String filename, String mimeType, byte[] data) {
    return out.file(filename, mimeType, data);
  }

  @Override
  public Future<Void> sessionInit(String sessionId) {
    return out.sessionInit(sessionId);
  }

  @Override
  public Future<Void> sessionOrphaned(String reason) {
    return out.sessionOrphaned(reason);
  }

  @Override
  public Future<ApprovalDecision> requestApproval(String toolId, String name, String inputJson) {
    return out.requestApproval(toolId, name, inputJson);
  }

  @Override
  public Future<Void> done(String fullResponse) {
    run.answered(fullResponse);
    return out.done(fullResponse);
  }

  @Override
  public Future<Void> error(String message) {
    run.failed(message);
    return out.error(message);
  }

  @Override
  public Future<Void> cancelled(String reason) {
    return out.cancelled(reason);
  }

  @Override
  public boolean isEnded() {
    return out.isEnded();
  }

  @Override
  public Future<String> cancellation() {
    return run.cancellation();
  }
}
