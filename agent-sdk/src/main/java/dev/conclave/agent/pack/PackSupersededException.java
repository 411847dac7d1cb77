package dev.conclave.agent.pack;

import dev.conclave.agent.Endpoint;
import io.vertx.grpc.common.GrpcStatus;

/**
 * The same pack id registered again from elsewhere, and the gateway ended this registration with
 * {@code ABORTED "superseded…"}. Permanent: the client stops instead of taking the tools back.
 */
public final class PackSupersededException extends PackStatusException {

  public PackSupersededException(String statusMessage, Endpoint endpoint) {
    super(GrpcStatus.ABORTED, statusMessage, endpoint);
  }

  @Override
  public boolean permanent() {
    return true;
  }
}
