package dev.conclave.gateway.ledger;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a ledger event records. {@code wireType} is the coarse {@code Event.type} GetEvents reports;
 * the kind itself is reported as {@code Event.raw_transport}.
 */
public enum EventKind {
  INBOUND("inbound", "message", false),
  THINKING("thinking", "message", false),
  TEXT("text", "message", false),
  TOOL_USE("tool_use", "tool_call", false),
  TOOL_RESULT("tool_result", "tool_result", false),
  TOOL_STATE("tool_state", "tool_result", false),
  TOOL_APPROVAL("tool_approval", "tool_call", false),
  TOOL_DECISION("tool_decision", "system", false),
  USER_QUESTION("user_question", "system", false),
  QUESTION_CLOSED("question_closed", "system", false),
  USAGE("usage", "system", false),
  FILE("file", "message", false),
  SESSION_INIT("session_init", "system", false),
  SESSION_ORPHANED("session_orphaned", "system", false),
  /** The agent's lifecycle state changed (in the agent's own conversation); text is the JSON LifecycleEvent. */
  LIFECYCLE("lifecycle", "system", false),
  DONE("done", "message", true),
  ERROR("error", "error", true),
  CANCELLED("cancelled", "error", true);

  private final String id;
  private final String wireType;
  private final boolean terminal;

  EventKind(String id, String wireType, boolean terminal) {
    this.id = id;
    this.wireType = wireType;
    this.terminal = terminal;
  }

  public String id() {
    return id;
  }

  public String wireType() {
    return wireType;
  }

  /** Ends its request. */
  public boolean terminal() {
    return terminal;
  }

  public static Optional<EventKind> of(String id) {
    return Arrays.stream(values()).filter(k -> k.id.equals(id)).findFirst();
  }
}
