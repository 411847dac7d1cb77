package dev.conclave.agent.pack;

import dev.conclave.agent.AgentSdkException;
import dev.conclave.agent.Endpoint;
import io.vertx.grpc.common.GrpcStatus;

import java.util.Locale;

/**
 * The gateway ended the pack's {@code Register} call with a non-OK gRPC status. {@link #permanent()}
 * says whether the client stops or reconnects.
 */
public class PackStatusException extends AgentSdkException {

  private final GrpcStatus status;
  private final String statusMessage;
  private final Endpoint endpoint;

  public PackStatusException(GrpcStatus status, String statusMessage, Endpoint endpoint) {
    super("gateway " + endpoint + " ended the pack registration with " + status.name()
      + (statusMessage == null || statusMessage.isEmpty() ? "" : ": " + statusMessage));
    this.status = status;
    this.statusMessage = statusMessage == null ? "" : statusMessage;
    this.endpoint = endpoint;
  }

  /** The exception that stands for {@code status}: {@code ABORTED "superseded…"} is a {@link PackSupersededException}. */
  public static PackStatusException of(GrpcStatus status, String statusMessage, Endpoint endpoint) {
    if (status == GrpcStatus.ABORTED && statusMessage != null
      && statusMessage.strip().toLowerCase(Locale.ROOT).startsWith("superseded")) {
      return new PackSupersededException(statusMessage, endpoint);
    }
    return new PackStatusException(status, statusMessage, endpoint);
  }

  public GrpcStatus status() {
    return status;
  }

  /** The gateway's {@code grpc-message}; empty when it sent none. */
  public String statusMessage() {
    return statusMessage;
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  /**
   * Whether registering again with the same token and manifest cannot succeed: a malformed manifest
   * ({@code INVALID_ARGUMENT}), a token refused ({@code UNAUTHENTICATED}) or not a pack's
   * ({@code PERMISSION_DENIED}), every tool name taken ({@code ALREADY_EXISTS}), no PackService
   * ({@code UNIMPLEMENTED}). Permanent failures stop the client; the others are retried.
   */
  public boolean permanent() {
    return switch (status) {
      case INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, ALREADY_EXISTS, UNIMPLEMENTED -> true;
      default -> false;
    };
  }
}
