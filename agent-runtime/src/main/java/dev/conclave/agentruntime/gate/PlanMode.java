package dev.conclave.agentruntime.gate;

/** The instruction added to the system prompt in {@link GateMode#PLAN} (seed 002's plan mode). */
public final class PlanMode {

  /** Appended to the system prompt when the mode is plan. */
  public static final String INSTRUCTION = String.join("\n",
    "You are in plan mode. Do not change anything yet: do not edit or create files and do not run",
    "commands that modify the system. Explore with read-only tools, work out what needs to be done,",
    "and write a step-by-step plan. When the plan is ready, present it and call ExitPlanMode (or say",
    "that the plan is ready) so the user can approve it before anything is implemented.");

  private PlanMode() {
  }

  /** {@code systemPrompt} with the plan instruction appended when {@code mode} is plan. */
  public static String systemPrompt(String systemPrompt, GateMode mode) {
    String base = systemPrompt == null ? "" : systemPrompt.strip();
    if (mode != GateMode.PLAN) {
      return base;
    }
    return base.isEmpty() ? INSTRUCTION : base + "\n\n" + INSTRUCTION;
  }
}
