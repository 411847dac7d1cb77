package dev.conclave.platform.errors;

import io.vertx.grpc.common.GrpcStatus;

/**
 * The categories of failure a caller can see, each with its one gRPC status and one HTTP status.
 * This is the only place where that mapping is decided.
 */
public enum ErrorKind {
  INVALID_ARGUMENT(GrpcStatus.INVALID_ARGUMENT, 400),
  UNAUTHENTICATED(GrpcStatus.UNAUTHENTICATED, 401),
  PERMISSION_DENIED(GrpcStatus.PERMISSION_DENIED, 403),
  NOT_FOUND(GrpcStatus.NOT_FOUND, 404),
  ALREADY_EXISTS(GrpcStatus.ALREADY_EXISTS, 409),
  CONFLICT(GrpcStatus.ABORTED, 409),
  FAILED_PRECONDITION(GrpcStatus.FAILED_PRECONDITION, 409),
  PAYLOAD_TOO_LARGE(GrpcStatus.RESOURCE_EXHAUSTED, 413),
  /** A media type or message encoding this node does not take (gRPC: the spec's answer to an unknown grpc-encoding). */
  UNSUPPORTED_MEDIA(GrpcStatus.UNIMPLEMENTED, 415),
  RATE_LIMITED(GrpcStatus.RESOURCE_EXHAUSTED, 429),
  UNAVAILABLE(GrpcStatus.UNAVAILABLE, 503),
  DEADLINE_EXCEEDED(GrpcStatus.DEADLINE_EXCEEDED, 504),
  INTERNAL(GrpcStatus.INTERNAL, 500);

  private final GrpcStatus grpcStatus;
  private final int httpStatus;

  ErrorKind(GrpcStatus grpcStatus, int httpStatus) {
    this.grpcStatus = grpcStatus;
    this.httpStatus = httpStatus;
  }

  public GrpcStatus grpcStatus() {
    return grpcStatus;
  }

  public int httpStatus() {
    return httpStatus;
  }
}
