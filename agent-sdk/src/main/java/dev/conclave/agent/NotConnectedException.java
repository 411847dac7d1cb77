package dev.conclave.agent;

/** An operation needs a registered stream and there is none right now (connecting, backing off or stopped). */
public class NotConnectedException extends AgentSdkException {

  public NotConnectedException(String message) {
    super(message);
  }
}
