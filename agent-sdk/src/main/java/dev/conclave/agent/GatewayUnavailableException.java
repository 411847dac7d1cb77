package dev.conclave.agent;

/**
 * The gateway could not be reached or the stream broke before the agent was registered:
 * connection refused or reset, no Welcome in time. Transient: retried with backoff.
 */
public class GatewayUnavailableException extends AgentSdkException {

  private final Endpoint endpoint;

  public GatewayUnavailableException(Endpoint endpoint, String what, Throwable cause) {
    super("gateway " + endpoint + " unavailable: " + what, cause);
    this.endpoint = endpoint;
  }

  public Endpoint endpoint() {
    return endpoint;
  }
}
