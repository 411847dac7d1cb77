package dev.conclave.agentruntime.backend;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.Injection;
import dev.conclave.agent.InjectionDecision;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.backend.BackendHandler;
import io.vertx.core.Future;

/**
 * The runtime's {@link AgentHandler}: the SDK's {@link BackendHandler} (sessions, stale-session and
 * transient-error retries, cancel, shutdown) plus injection, which it queues for the backend's
 * next turn.
 */
public final class RuntimeHandler implements AgentHandler {

  private final BackendHandler delegate;
  private final InjectionQueue injections;

  public RuntimeHandler(BackendHandler delegate, InjectionQueue injections) {
    this.delegate = delegate;
    this.injections = injections;
  }

  @Override
  public Future<Void> handle(IncomingMessage message, ResponseStream response) {
    return delegate.handle(message, response);
  }

  @Override
  public Future<Void> onCancel(String requestId, String reason) {
    return delegate.onCancel(requestId, reason);
  }

  @Override
  public Future<InjectionDecision> onInjection(Injection injection) {
    return Future.succeededFuture(injections.offer(injection)
      ? InjectionDecision.accept()
      : InjectionDecision.reject("too much context is already waiting for the next turn"));
  }

  @Override
  public Future<Void> close() {
    return delegate.close();
  }
}
