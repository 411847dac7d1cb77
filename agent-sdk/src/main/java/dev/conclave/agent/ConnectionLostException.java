package dev.conclave.agent;

/**
 * The stream to the gateway ended while something was still waiting on it: a response event not
 * yet written, an approval, a pack tool result.
 */
public class ConnectionLostException extends AgentSdkException {

  public ConnectionLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
