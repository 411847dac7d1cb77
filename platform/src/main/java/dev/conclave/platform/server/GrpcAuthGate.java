package dev.conclave.platform.server;

import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.server.GrpcServer;

import java.util.Set;

/**
 * The one gRPC interceptor: every call on the gRPC port passes here before any service sees it.
 * A call without a valid bearer token ends with {@code UNAUTHENTICATED} and reaches no handler.
 *
 * <p>Only the standard health and reflection services are open, so that probes and off-the-shelf
 * tools (grpc_health_probe, grpcurl) work; they reveal liveness and the public schema, nothing more.
 */
public final class GrpcAuthGate implements Handler<HttpServerRequest> {

  static final Set<String> PUBLIC_SERVICES = Set.of(
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection");

  private final GrpcServer server;
  private final TokenService tokens;

  public GrpcAuthGate(GrpcServer server, TokenService tokens) {
    this.server = server;
    this.tokens = tokens;
  }

  @Override
  public void handle(HttpServerRequest request) {
    if (!isPublic(request.path())) {
      try {
        tokens.verifyHeader(request.getHeader("authorization"));
      } catch (ConclaveException e) {
        GrpcFailures.reject(request.response(), e);
        return;
      }
    }
    server.handle(request);
  }

  static boolean isPublic(String path) {
    // gRPC paths are /<package.Service>/<Method>
    int slash = path.indexOf('/', 1);
    return slash > 1 && PUBLIC_SERVICES.contains(path.substring(1, slash));
  }
}
