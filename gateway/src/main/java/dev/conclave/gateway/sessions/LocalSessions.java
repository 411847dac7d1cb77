package dev.conclave.gateway.sessions;

import dev.conclave.gateway.mailbox.Mailbox;
import io.vertx.core.Future;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The registered agent sessions whose streams this node holds, by agent id; to the mailbox, the
 * session that may take a client's message in the statement that writes it.
 */
public final class LocalSessions implements Mailbox.Sessions {

  private final ConcurrentMap<String, AgentSession> byAgent = new ConcurrentHashMap<>();
  private volatile boolean draining;

  /** From now on this node refuses new agent streams. */
  public void startDraining() {
    draining = true;
  }

  public boolean draining() {
    return draining;
  }

  /** Makes {@code session} the agent's local session; returns the one it replaced. */
  Optional<AgentSession> put(String agentId, AgentSession session) {
    return Optional.ofNullable(byAgent.put(agentId, session)).filter(old -> old != session);
  }

  void remove(String agentId, AgentSession session) {
    byAgent.remove(agentId, session);
  }

  public Optional<AgentSession> get(String agentId) {
    return Optional.ofNullable(byAgent.get(agentId));
  }

  /**
   * Runs a client's message's statement for {@code agentId}: through the agent's session here, which
   * makes it dispatch the request to itself when it is idle; with no session here, without a dispatch.
   */
  @Override
  public Future<Mailbox.Enqueued> write(String agentId, Function<Optional<Mailbox.DispatchTo>, Future<Mailbox.Enqueued>> statement) {
    AgentSession local = byAgent.get(agentId);
    return local == null ? statement.apply(Optional.empty()) : local.acceptAndDispatch(statement);
  }

  public List<AgentSession> all() {
    return List.copyOf(byAgent.values());
  }

  public int size() {
    return byAgent.size();
  }
}
