package dev.conclave.agentruntime.gate;

/**
 * What a gated tool call came to, as the model is told: the tool's output, its error, or why it
 * did not run.
 *
 * @param text the output, the error, or the denial reason
 * @param isError the tool failed or did not run
 * @param ran the tool ran (false when the policy or a person refused it, or no one answered)
 */
public record ToolOutcome(String text, boolean isError, boolean ran) {

  public static ToolOutcome output(String text) {
    return new ToolOutcome(text, false, true);
  }

  public static ToolOutcome failed(String error) {
    return new ToolOutcome(error, true, true);
  }

  public static ToolOutcome refused(String reason) {
    return new ToolOutcome(reason, true, false);
  }
}
