package dev.conclave.agent.backend;

import io.vertx.core.Future;

/**
 * An AI backend behind the agent: a model API, a CLI, an agent SDK. Swapping the backend changes
 * nothing else; {@link BackendHandler} adapts any backend to the gateway protocol and adds the
 * stale-session and transient-error retries.
 *
 * <p>Methods are called on the client's Vert.x context and must not block; the returned futures
 * may be completed from any thread.
 */
public interface AgentBackend {

  /**
   * Runs one prompt. Stream progress through {@code callbacks} while running (text chunks, tool
   * activity, approvals, usage) and complete with the final response. A backend that hits an API
   * error completes with {@link BackendResponse#isError()} set and the raw error as content rather
   * than failing the future, so the handler can tell transient errors from permanent ones; a
   * failed future is reported to the user as an error at once.
   *
   * @param session the conversation, with the backend session id to resume when one is known
   */
  Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks);

  /** Interrupts the execution running for {@code session}. */
  Future<Void> cancel(BackendSession session);

  /** Releases every resource (connections, sessions); called once when the agent stops. */
  Future<Void> shutdown();
}
