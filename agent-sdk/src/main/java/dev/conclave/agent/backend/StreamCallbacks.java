package dev.conclave.agent.backend;

import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.ToolState;
import io.vertx.core.Future;

/** {@link BackendCallbacks} that turn backend progress into events on a {@link ResponseStream}. */
final class StreamCallbacks implements BackendCallbacks {

  private final ResponseStream response;
  private volatile boolean toolRan;

  StreamCallbacks(ResponseStream response) {
    this.response = response;
  }

  @Override
  public Future<Void> textChunk(String chunk) {
    return response.text(chunk);
  }

  @Override
  public Future<Void> thinking(String status) {
    return response.thinking(status);
  }

  @Override
  public Future<Void> toolStarted(String toolId, String toolName, String inputJson) {
    toolRan = true;
    return response.toolUse(toolId, toolName, inputJson)
      .compose(v -> response.toolState(toolId, ToolState.RUNNING, null));
  }

  @Override
  public Future<Void> toolFinished(String toolId, String output, boolean isError) {
    toolRan = true;
    return response.toolResult(toolId, output, isError)
      .compose(v -> response.toolState(toolId, isError ? ToolState.FAILED : ToolState.COMPLETED, isError ? output : null));
  }

  @Override
  public Future<Boolean> canUseTool(String toolId, String toolName, String inputJson) {
    return response.toolState(toolId, ToolState.AWAITING_APPROVAL, null)
      .compose(v -> response.requestApproval(toolId, toolName, inputJson))
      .compose(decision -> decision.approved()
        ? Future.succeededFuture(true)
        : response.toolState(toolId, ToolState.DENIED, null).map(false));
  }

  @Override
  public Future<Void> toolUse(String toolId, String toolName, String inputJson) {
    return response.toolUse(toolId, toolName, inputJson);
  }

  @Override
  public Future<Void> toolState(String toolId, ToolState state, String detail) {
    if (state == ToolState.RUNNING || state == ToolState.COMPLETED || state == ToolState.FAILED) {
      toolRan = true;
    }
    return response.toolState(toolId, state, detail);
  }

  @Override
  public Future<Void> toolResult(String toolId, String output, boolean isError) {
    return response.toolResult(toolId, output, isError);
  }

  /** Whether a tool started running during this run (announced, asked about or denied ones did not). */
  boolean toolRan() {
    return toolRan;
  }

  @Override
  public Future<Void> usage(TokenUsage usage) {
    return response.usage(usage);
  }

  @Override
  public Future<String> cancellation() {
    return response.cancellation();
  }
}
