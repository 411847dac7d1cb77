package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.store.ClientSessionStore;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;

import java.util.Optional;
import java.util.UUID;

/**
 * What {@code configure_session} checks and keeps: that the caller may use the agent and the
 * conversation, the session's stored record (so a reconnect resumes it, on any node), and the agent's
 * lifecycle state for the answer. One per node, shared by its sessions.
 */
public final class SessionRecords {

  private final ConversationAccess conversations;
  private final ClientSessionStore sessions;
  private final Lifecycle lifecycle;

  public SessionRecords(ConversationAccess conversations, ClientSessionStore sessions, Lifecycle lifecycle) {
    this.conversations = conversations;
    this.sessions = sessions;
    this.lifecycle = lifecycle;
  }

  /** Fails unless the caller may talk to the agent and follow the conversation. */
  Future<Void> authorize(Caller caller, String agentId, String conversationKey) {
    return conversations.agents().require(caller, agentId).compose(v -> conversations.require(caller, conversationKey));
  }

  Future<Optional<ClientSessionStore.Stored>> find(Optional<UUID> sessionId) {
    return sessionId.isEmpty() ? Future.succeededFuture(Optional.empty()) : sessions.find(sessionId.get());
  }

  /** Stores the session's configuration; false when the session id is another principal's. */
  Future<Boolean> configure(UUID sessionId, Caller caller, String agentId, String conversationKey, boolean keepTask) {
    return sessions.configure(sessionId, caller.principalId(), agentId, conversationKey, keepTask);
  }

  /** Records the session's running task, so a resume knows it. */
  Future<Void> task(UUID sessionId, UUID request, String subId) {
    return sessions.task(sessionId, request, subId);
  }

  Future<Optional<LifecycleState>> lifecycle(String agentId) {
    return lifecycle.state(agentId);
  }
}
