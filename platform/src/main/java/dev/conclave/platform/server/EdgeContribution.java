package dev.conclave.platform.server;

import io.vertx.ext.web.Router;
import io.vertx.grpc.server.GrpcServer;

import java.util.List;

/**
 * What a role adds to the node's shared gRPC and HTTP ports. Called once per edge verticle
 * instance, on that instance's event loop, so handlers created here belong to that loop.
 */
public interface EdgeContribution {

  /** Adds gRPC services. Calls reach them only after the auth gate. */
  default void bindGrpc(GrpcServer server) {
  }

  /**
   * Adds HTTP routes. Routes under {@code /api/} are behind the auth handler already; a contribution
   * that adds routes elsewhere decides about authentication itself.
   */
  default void bindHttp(Router router) {
  }

  /** Credentials besides bearer tokens accepted on the gRPC port. */
  default List<GrpcCredentials> grpcCredentials() {
    return List.of();
  }

  /** Credentials besides bearer tokens that this role accepts on {@code /api/} routes. */
  default List<HttpCredentials> httpCredentials() {
    return List.of();
  }

  /** Addresses dashboards may follow over the event-bus bridge, with who may (called per edge instance). */
  default List<dev.conclave.platform.bridge.BridgeTopic> bridgeTopics() {
    return List.of();
  }
}
