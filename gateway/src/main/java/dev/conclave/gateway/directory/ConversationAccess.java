package dev.conclave.gateway.directory;

import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;

/**
 * Who may read and follow a conversation: whoever may act on every agent it belongs to, the one it
 * was created for and the one its key is bound to now ({@code frontend:channel}); a key that is
 * neither is an agent id. The rule is {@link AgentAccess#requireConversation}'s, the same one that
 * re-checks open followers when a binding moves.
 */
public final class ConversationAccess {

  private final AgentAccess agents;

  public ConversationAccess(AgentAccess agents) {
    this.agents = agents;
  }

  /** The rule for agents named directly. */
  public AgentAccess agents() {
    return agents;
  }

  public Future<Void> require(Caller caller, String conversationKey) {
    return agents.requireConversation(caller, conversationKey);
  }
}
