package dev.conclave.gateway.sessions;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The registered agent sessions whose streams this node holds, by agent id. */
public final class LocalSessions {

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

  public List<AgentSession> all() {
    return List.copyOf(byAgent.values());
  }

  public int size() {
    return byAgent.size();
  }
}
