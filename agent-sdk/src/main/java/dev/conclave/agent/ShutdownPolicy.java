package dev.conclave.agent;

/** What the agent does once a gateway's {@code Shutdown} has been honoured (current work finished, stream closed). */
public enum ShutdownPolicy {
  /**
   * Reconnect, starting with the next endpoint in the list. This is how a draining gateway node
   * hands its agents to the other nodes, so it is the default.
   */
  RECONNECT,
  /** Stop the client: no further connection attempts; {@link dev.conclave.agent.client.AgentClient#stopped()} completes. */
  STOP
}
