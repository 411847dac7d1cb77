package dev.conclave.agent;

/**
 * An event was written while the bounded queue of events waiting for the gateway to read was full.
 * A producer that waits for each write's future before the next never sees this.
 */
public class WriteQueueOverflowException extends AgentSdkException {

  public WriteQueueOverflowException(int capacity) {
    super("the gateway is reading slower than the agent writes and " + capacity
      + " events are already waiting; wait for the previous write's future before writing more");
  }
}
