package dev.conclave.swarm.protocol;

import java.util.Arrays;
import java.util.Optional;

/** The protocol's operations, named as in a request's {@code operation} member. */
public enum Operation {
  REGISTER,
  HEARTBEAT,
  CLAIM,
  PROGRESS,
  COMPLETE,
  FAIL,
  SEND_MESSAGE,
  RECEIVE_MESSAGES,
  ACQUIRE_LEASE,
  RELEASE_LEASE,
  /** Not in the spec's list: acknowledges a message that asked for it ({@code agentId, messageId}). */
  ACK_MESSAGE;

  public static Optional<Operation> of(String wire) {
    return Arrays.stream(values()).filter(op -> op.name().equals(wire)).findFirst();
  }
}
