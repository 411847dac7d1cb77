package dev.conclave.agent;

import io.vertx.core.Future;

/**
 * The events of the agent's answer to one {@link IncomingMessage}; every event goes to the gateway
 * as a {@code MessageResponse} carrying the message's request id.
 *
 * <p><b>Terminal events.</b> Exactly one of {@link #done}, {@link #error} and {@link #cancelled}
 * ends the request. Any event after it, including a second terminal, is not sent and its future
 * fails with {@link RequestEndedException}.
 *
 * <p><b>Backpressure.</b> Every method returns a future that completes once the gateway stream has
 * accepted the event. When the gateway reads slower than the agent writes, the futures wait; a
 * producer that waits for each future before the next event slows down instead of piling up
 * events in memory. The number of events waiting is bounded; beyond it a write fails with
 * {@link WriteQueueOverflowException}. When the stream is gone, writes fail with
 * {@link ConnectionLostException} or {@link RequestEndedException}.
 *
 * <p>Methods may be called from any thread; events keep the order in which one thread wrote them.
 */
public interface ResponseStream {

  /** The request id every event carries. */
  String requestId();

  /** A status line such as "reading files". */
  Future<Void> thinking(String status);

  /** A chunk of the answer; stream the answer incrementally. */
  Future<Void> text(String chunk);

  /** The agent invokes a tool. */
  Future<Void> toolUse(String toolId, String name, String inputJson);

  /** The result of a tool invocation. */
  Future<Void> toolResult(String toolId, String output, boolean isError);

  /** A tool invocation moved to a new state (feature {@link Feature#TOOL_STATES}). */
  Future<Void> toolState(String toolId, ToolState state, String detail);

  /** Tokens spent so far (feature {@link Feature#TOKEN_USAGE}). */
  Future<Void> usage(TokenUsage usage);

  /** A file produced by the agent. */
  Future<Void> file(String filename, String mimeType, byte[] data);

  /** The backend started or confirmed a session. */
  Future<Void> sessionInit(String sessionId);

  /** The backend lost its session. */
  Future<Void> sessionOrphaned(String reason);

  /**
   * Asks a human to approve a tool call. The returned future completes when the gateway sends the
   * matching {@code ToolApprovalResponse}. Once a decision in this request approved all, later
   * calls complete at once as approved without asking ({@link ApprovalDecision#automatic()}).
   * Fails with {@link RequestEndedException} or {@link ConnectionLostException} if the request
   * ends or the stream drops first.
   */
  Future<ApprovalDecision> requestApproval(String toolId, String name, String inputJson);

  /** Terminal: the request succeeded. {@code fullResponse} may be empty. */
  Future<Void> done(String fullResponse);

  /** Terminal: the request succeeded, with no full response text. */
  default Future<Void> done() {
    return done("");
  }

  /** Terminal: the request failed; {@code message} is shown to the person who sent it. */
  Future<Void> error(String message);

  /** Terminal: the request stopped because it was cancelled. */
  Future<Void> cancelled(String reason);

  /** Whether a terminal event was already emitted (or the request was abandoned with its stream). */
  boolean isEnded();

  /**
   * Completes with the reason when the request is asked to stop: a {@code CancelRequest} for it,
   * the stream dropping, or the client stopping. Long-running handlers watch it to stop early.
   */
  Future<String> cancellation();
}
