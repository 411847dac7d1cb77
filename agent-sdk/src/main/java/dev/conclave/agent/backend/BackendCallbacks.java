package dev.conclave.agent.backend;

import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.ToolState;
import io.vertx.core.Future;

/**
 * How a running backend reports progress. Each call becomes protocol events for the request in
 * progress; the futures carry the gateway's backpressure, so a backend that waits on them never
 * outruns a slow reader. Callable from any thread.
 */
public interface BackendCallbacks {

  /** A chunk of answer text. */
  Future<Void> textChunk(String chunk);

  /** A status line. */
  Future<Void> thinking(String status);

  /** A tool starts running: {@code tool_use}, then {@code tool_state RUNNING}. */
  Future<Void> toolStarted(String toolId, String toolName, String inputJson);

  /** A tool finished: {@code tool_result}, then {@code tool_state COMPLETED} or {@code FAILED}. */
  Future<Void> toolFinished(String toolId, String output, boolean isError);

  /**
   * Tool gating: asks a human whether the tool may run ({@code tool_state AWAITING_APPROVAL}, then a
   * {@code tool_approval_request}); completes with the decision, reporting {@code DENIED} when refused.
   */
  Future<Boolean> canUseTool(String toolId, String toolName, String inputJson);

  /**
   * The backend wants a tool: {@code tool_use} alone, before any decision about it. Backends that
   * gate tools themselves report the invocation first, then its states and result one by one.
   */
  Future<Void> toolUse(String toolId, String toolName, String inputJson);

  /** A tool invocation moved to {@code state} ({@code tool_state}); {@code detail} may be null. */
  Future<Void> toolState(String toolId, ToolState state, String detail);

  /** A tool's result alone ({@code tool_result}), with no state change. */
  Future<Void> toolResult(String toolId, String output, boolean isError);

  /** Tokens spent so far. */
  Future<Void> usage(TokenUsage usage);

  /** Completes with the reason when the request is cancelled; long runs watch it to stop early. */
  Future<String> cancellation();
}
