package dev.conclave.agent;

import io.vertx.core.Future;

/**
 * The agent's logic. The SDK calls it on the client's Vert.x context, so its methods must not block:
 * run blocking work with {@code vertx.executeBlocking} or on your own threads and complete the
 * returned futures from there.
 *
 * <p><b>One at a time.</b> {@link #handle} is never called again before the previous call's
 * future completed and its request got its terminal event.
 *
 * <p><b>Terminal event.</b> {@code handle} should end the request with exactly one of
 * {@link ResponseStream#done}, {@link ResponseStream#error} or {@link ResponseStream#cancelled}.
 * If its future completes without one, the SDK ends the request itself: with {@code cancelled} when
 * the request was asked to stop, else with {@code done} carrying the concatenated text chunks when
 * the future succeeded, else with {@code error} and a message fit for the person who sent it.
 */
@FunctionalInterface
public interface AgentHandler {

  /** Answers one message through {@code response}. */
  Future<Void> handle(IncomingMessage message, ResponseStream response);

  /**
   * The gateway asked to cancel the request in progress (only when {@link Feature#CANCELLATION} is
   * declared), or the stream carrying it dropped, or the client is stopping. Stop the work; end the
   * request with {@link ResponseStream#cancelled} if you want a particular reason. Once the returned
   * future completes, the SDK ends the request with {@code cancelled(reason)} if it has not ended.
   * The request's {@link ResponseStream#cancellation()} completes before this is called.
   */
  default Future<Void> onCancel(String requestId, String reason) {
    return Future.succeededFuture();
  }

  /**
   * Context pushed mid-turn (only when {@link Feature#INJECTION} is declared). The decision is sent
   * back as {@code InjectionAck}. The default declines.
   */
  default Future<InjectionDecision> onInjection(Injection injection) {
    return Future.succeededFuture(InjectionDecision.reject("this agent does not take injected context"));
  }

  /**
   * The gateway sent {@code Shutdown}. The SDK lets the current work finish, closes the stream and
   * then reconnects or stops according to its {@link ShutdownPolicy}.
   */
  default void onShutdown(String reason) {
  }

  /** The client is stopping for good; release the backend's resources. */
  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
