package dev.conclave.agent;

/** Lifecycle of one tool invocation, reported through {@link ResponseStream#toolState}. */
public enum ToolState {
  /** Known, not started. */
  PENDING,
  /** Blocked on a human decision. */
  AWAITING_APPROVAL,
  RUNNING,
  COMPLETED,
  FAILED,
  /** A human said no. */
  DENIED,
  TIMEOUT,
  CANCELLED
}
