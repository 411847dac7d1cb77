package dev.conclave.agentruntime.gate;

/**
 * What the gate decided about one tool call, before it runs: it may run, or it may not and why.
 * Used by backends whose tools another program runs (the CLIs): they pass the decision on and
 * report the result when that program says the tool finished.
 *
 * @param allowed the tool may run
 * @param reason why not, in words the model reads; empty when allowed
 */
public record GateDecision(boolean allowed, String reason) {

  public static GateDecision allow() {
    return new GateDecision(true, "");
  }

  public static GateDecision refuse(String reason) {
    return new GateDecision(false, reason);
  }
}
