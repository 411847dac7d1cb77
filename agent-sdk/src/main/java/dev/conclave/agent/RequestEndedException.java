package dev.conclave.agent;

/**
 * An event or approval was attempted for a request that already ended: it got its terminal event
 * (done, error or cancelled) or its stream is gone.
 */
public class RequestEndedException extends AgentSdkException {

  private final String requestId;

  public RequestEndedException(String requestId, String how) {
    super("request " + requestId + " already ended: " + how);
    this.requestId = requestId;
  }

  public String requestId() {
    return requestId;
  }
}
