package dev.conclave.agentruntime.gate;

/**
 * What the policy says about one tool call, before any human is asked.
 *
 * @param action allow, deny or ask
 * @param reason why, in words the model and the people following the conversation can read
 */
public record Verdict(Action action, String reason) {

  /** The three outcomes of a policy. */
  public enum Action { ALLOW, DENY, ASK }

  public static Verdict allow(String reason) {
    return new Verdict(Action.ALLOW, reason);
  }

  public static Verdict deny(String reason) {
    return new Verdict(Action.DENY, reason);
  }

  public static Verdict ask(String reason) {
    return new Verdict(Action.ASK, reason);
  }
}
