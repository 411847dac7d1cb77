package dev.conclave.agent;

/**
 * Optional protocol features an agent declares in {@code RegisterAgent.protocol_features}.
 * The gateway only sends the messages of a feature the agent declared.
 */
public enum Feature {
  /** The agent reports {@code TokenUsage} events. */
  TOKEN_USAGE("token_usage"),
  /** The agent reports {@code ToolStateUpdate} events. */
  TOOL_STATES("tool_states"),
  /** The agent accepts {@code InjectContext} and answers with {@code InjectionAck}. */
  INJECTION("injection"),
  /** The agent honours {@code CancelRequest}. */
  CANCELLATION("cancellation");

  private final String wireName;

  Feature(String wireName) {
    this.wireName = wireName;
  }

  /** The string sent on the wire. */
  public String wireName() {
    return wireName;
  }
}
