package dev.conclave.agent;

import java.util.Optional;

/**
 * Outcome of {@link dev.conclave.agent.client.AgentClient#executePackTool}: exactly one of {@code outputJson} and {@code error} is present.
 *
 * @param requestId the correlation id the SDK generated for the call
 * @param toolName the tool that ran
 */
public record PackToolResult(String requestId, String toolName, Optional<String> outputJson, Optional<String> error) {

  /** True when the tool ran and returned output. */
  public boolean succeeded() {
    return outputJson.isPresent();
  }
}
