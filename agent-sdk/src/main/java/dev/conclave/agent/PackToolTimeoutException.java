package dev.conclave.agent;

import java.time.Duration;

/** No {@code PackToolResult} arrived for an {@code ExecutePackTool} within the timeout. */
public class PackToolTimeoutException extends AgentSdkException {

  private final String toolName;
  private final String requestId;

  public PackToolTimeoutException(String toolName, String requestId, Duration timeout) {
    super("pack tool " + toolName + " gave no result within " + timeout.toMillis() + " ms (request " + requestId + ")");
    this.toolName = toolName;
    this.requestId = requestId;
  }

  public String toolName() {
    return toolName;
  }

  public String requestId() {
    return requestId;
  }
}
