package dev.conclave.agent;

import io.vertx.grpc.common.GrpcStatus;

/**
 * The gateway ended the agent stream with a non-OK gRPC status. The statuses that need a different
 * reaction have their own subclass; {@link #of} picks it.
 */
public class GatewayStatusException extends AgentSdkException {

  private final GrpcStatus status;
  private final String statusMessage;
  private final Endpoint endpoint;

  public GatewayStatusException(GrpcStatus status, String statusMessage, Endpoint endpoint) {
    super("gateway " + endpoint + " ended the agent stream with " + status.name()
      + (statusMessage == null || statusMessage.isEmpty() ? "" : ": " + statusMessage));
    this.status = status;
    this.statusMessage = statusMessage == null ? "" : statusMessage;
    this.endpoint = endpoint;
  }

  /** The exception that stands for {@code status}. */
  public static GatewayStatusException of(GrpcStatus status, String statusMessage, Endpoint endpoint) {
    return switch (status) {
      case UNAUTHENTICATED -> new AuthenticationFailedException(statusMessage, endpoint);
      case PERMISSION_DENIED -> new PermissionDeniedException(statusMessage, endpoint);
      case ALREADY_EXISTS -> new AgentAlreadyConnectedException(statusMessage, endpoint);
      case INVALID_ARGUMENT -> new InvalidRegistrationException(statusMessage, endpoint);
      default -> new GatewayStatusException(status, statusMessage, endpoint);
    };
  }

  public GrpcStatus status() {
    return status;
  }

  /** The gateway's {@code grpc-message}, empty when it sent none. */
  public String statusMessage() {
    return statusMessage;
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  /**
   * Whether trying again with the same token and registration cannot succeed. Permanent failures
   * stop the client; the others are retried with backoff.
   */
  public boolean permanent() {
    return switch (status) {
      case UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, UNIMPLEMENTED -> true;
      default -> false;
    };
  }

  /** {@code UNAUTHENTICATED}: the bearer token is missing, malformed, expired or revoked. Permanent. */
  public static final class AuthenticationFailedException extends GatewayStatusException {
    public AuthenticationFailedException(String statusMessage, Endpoint endpoint) {
      super(GrpcStatus.UNAUTHENTICATED, statusMessage, endpoint);
    }
  }

  /** {@code PERMISSION_DENIED}: the token's principal may not connect as this agent. Permanent. */
  public static final class PermissionDeniedException extends GatewayStatusException {
    public PermissionDeniedException(String statusMessage, Endpoint endpoint) {
      super(GrpcStatus.PERMISSION_DENIED, statusMessage, endpoint);
    }
  }

  /**
   * {@code ALREADY_EXISTS}: another stream holds this agent id. Retried a bounded number of times,
   * since right after a reconnect it is usually this agent's own previous stream that the gateway
   * has not noticed is gone yet.
   */
  public static final class AgentAlreadyConnectedException extends GatewayStatusException {
    public AgentAlreadyConnectedException(String statusMessage, Endpoint endpoint) {
      super(GrpcStatus.ALREADY_EXISTS, statusMessage, endpoint);
    }
  }

  /** {@code INVALID_ARGUMENT}: the registration itself is malformed (for example no agent id). Permanent. */
  public static final class InvalidRegistrationException extends GatewayStatusException {
    public InvalidRegistrationException(String statusMessage, Endpoint endpoint) {
      super(GrpcStatus.INVALID_ARGUMENT, statusMessage, endpoint);
    }
  }
}
