package dev.conclave.agentruntime.swarm;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.Injection;
import dev.conclave.agent.InjectionDecision;
import dev.conclave.agent.ResponseStream;
import io.vertx.core.Future;

/**
 * The agent's handler when it works the swarm: the message that hands over the task it holds (in the
 * conversation {@code swarm:<taskId>}, from {@value #SENDER}) is worked through the task's
 * {@link TaskRun}; every other message goes to the agent's own handler as before. A hand-over for a
 * task the agent does not hold (left in the mailbox from an earlier claim) is answered with an error
 * and not worked.
 */
public final class SwarmHandler implements AgentHandler {

  /** Who the coordinator's hand-over comes from (the gateway's {@code TaskConversationOps.SENDER}). */
  static final String SENDER = "swarm";

  private final AgentHandler delegate;
  private final SwarmWorker worker;

  public SwarmHandler(AgentHandler delegate, SwarmWorker worker) {
    this.delegate = delegate;
    this.worker = worker;
  }

  @Override
  public Future<Void> handle(IncomingMessage message, ResponseStream response) {
    TaskRun run = worker.current();
    if (run != null && run.takes(message.threadId(), message.sender())) {
      run.begin(message.requestId(), reason -> delegate.onCancel(message.requestId(), reason));
      return delegate.handle(message, new TaskResponse(response, run))
        .onComplete(ar -> run.requestEnded(ar.failed() ? ar.cause() : null));
    }
    if (message.threadId().startsWith("swarm:") && SENDER.equals(message.sender())) {
      return response.error("this message hands over swarm task " + message.threadId().substring("swarm:".length())
        + ", which this agent does not hold now; it is not worked here");
    }
    return delegate.handle(message, response);
  }

  @Override
  public Future<Void> onCancel(String requestId, String reason) {
    return delegate.onCancel(requestId, reason);
  }

  @Override
  public Future<InjectionDecision> onInjection(Injection injection) {
    return delegate.onInjection(injection);
  }

  @Override
  public void onShutdown(String reason) {
    delegate.onShutdown(reason);
  }

  @Override
  public Future<Void> close() {
    return delegate.close();
  }
}
