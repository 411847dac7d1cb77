package dev.conclave.agent;

/** The client was stopped while the operation was pending. */
public class ClientStoppedException extends AgentSdkException {

  public ClientStoppedException(String message) {
    super(message);
  }
}
