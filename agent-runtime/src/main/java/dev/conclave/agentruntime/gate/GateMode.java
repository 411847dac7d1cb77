package dev.conclave.agentruntime.gate;

import java.util.Locale;

/** How the tool gate treats a tool that no rule names. */
public enum GateMode {
  /** Run it. */
  AUTO,
  /** Ask the people following the conversation ({@code tool_approval_request}) and wait. */
  ASK,
  /** Plan first: only read-only tools run; the plan instruction is added to the system prompt. */
  PLAN;

  /** Parses {@code auto}, {@code ask} or {@code plan}, in any case. */
  public static GateMode parse(String value) {
    try {
      return valueOf(value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("mode must be auto, ask or plan, got '" + value + "'");
    }
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
