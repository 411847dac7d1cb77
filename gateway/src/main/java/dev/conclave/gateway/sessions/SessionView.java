package dev.conclave.gateway.sessions;

/**
 * What a session's parts may read of its state, and nothing they may change: the state itself has
 * one owner ({@link SessionState}, held by {@link AgentSession}).
 */
interface SessionView {

  /** The agent's id once registered, else empty. */
  String agentId();

  /** The session's epoch once registered, else -1. */
  long epoch();

  /** What registration granted, or null before it. */
  Registration.Registered registration();

  /** The request handed to the agent and not ended yet, or null. */
  InFlight inFlight();

  /** Registered and not closing. */
  boolean registered();

  /** The node is stopping: the session takes no new work and ends once its request is done. */
  boolean draining();

  /** Registering: the session reads nothing more from the agent until registration is done. */
  boolean registering();

  boolean closed();
}
