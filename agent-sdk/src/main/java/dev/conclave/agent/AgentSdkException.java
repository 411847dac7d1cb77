package dev.conclave.agent;

/** Base of every failure the SDK reports. */
public class AgentSdkException extends RuntimeException {

  public AgentSdkException(String message) {
    super(message);
  }

  public AgentSdkException(String message, Throwable cause) {
    super(message, cause);
  }
}
