package dev.conclave.agent;

import java.util.Optional;

/**
 * The gateway answered {@code RegisterAgent} with a {@code RegistrationError} (for example: the
 * agent is not approved). Permanent: the client stops instead of retrying the same registration.
 */
public class RegistrationRejectedException extends AgentSdkException {

  private final String reason;
  private final Optional<String> suggestedId;
  private final Endpoint endpoint;

  public RegistrationRejectedException(String reason, Optional<String> suggestedId, Endpoint endpoint) {
    super("gateway " + endpoint + " rejected the registration: " + reason
      + suggestedId.map(id -> " (suggested agent id: " + id + ")").orElse(""));
    this.reason = reason;
    this.suggestedId = suggestedId;
    this.endpoint = endpoint;
  }

  /** The gateway's human-readable reason. */
  public String reason() {
    return reason;
  }

  /** An agent id the gateway would accept, when it offered one. */
  public Optional<String> suggestedId() {
    return suggestedId;
  }

  public Endpoint endpoint() {
    return endpoint;
  }
}
