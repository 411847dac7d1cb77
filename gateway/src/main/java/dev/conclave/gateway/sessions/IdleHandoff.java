package dev.conclave.gateway.sessions;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.mailbox.Handoff;
import io.vertx.core.Future;

import java.util.Optional;

/**
 * The {@link Handoff} of this node: a message for an agent whose session is here goes to that
 * session's dispatcher, which dispatches it in the same statement when the agent is idle. For any
 * other agent it is a plain ledger write.
 */
public final class IdleHandoff implements Handoff {

  private final LocalSessions sessions;
  private final LedgerWriter writer;

  public IdleHandoff(LocalSessions sessions, LedgerWriter writer) {
    this.sessions = sessions;
    this.writer = writer;
  }

  @Override
  public Future<Written> write(String agentId, Message message) {
    Optional<AgentSession> local = sessions.get(agentId);
    if (local.isEmpty()) {
      return Dispatcher.enqueue(writer, agentId, message, Optional.empty()).map(Written::of);
    }
    return local.get().acceptAndDispatch(message);
  }
}
