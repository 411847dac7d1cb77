package dev.conclave.platform.server;

import com.google.protobuf.Descriptors.ServiceDescriptor;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenService;
import io.vertx.core.Future;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/**
 * Builds a gRPC service whose handlers receive the verified {@link Caller} and whose failures end
 * the call with the precise status ({@link GrpcFailures}). The result carries the service
 * descriptor, so reflection lists it.
 */
public final class GrpcEndpoint {

  /** A unary method: one request in, one response (or failure) out. */
  @FunctionalInterface
  public interface Unary<Req, Resp> {
    Future<Resp> call(Caller caller, Req request);
  }

  /** A streaming method, handled on the raw request and response streams. */
  @FunctionalInterface
  public interface Streaming<Req, Resp> {
    void call(Caller caller, GrpcServerRequest<Req, Resp> request);
  }

  private final ServiceBuilder builder;
  private final TokenService tokens;

  private GrpcEndpoint(ServiceBuilder builder, TokenService tokens) {
    this.builder = builder;
    this.tokens = tokens;
  }

  public static GrpcEndpoint service(ServiceName name, ServiceDescriptor descriptor, TokenService tokens) {
    return new GrpcEndpoint(Service.service(name, descriptor), tokens);
  }

  public <Req, Resp> GrpcEndpoint unary(ServiceMethod<Req, Resp> method, Unary<Req, Resp> handler) {
    builder.bind(method, request -> {
      Caller caller;
      try {
        caller = caller(request);
      } catch (RuntimeException e) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), e);
        return;
      }
      request.last()
        .compose(message -> handler.call(caller, message))
        .onComplete(ar -> {
          if (ar.succeeded()) {
            request.response().end(ar.result());
          } else {
            GrpcFailures.fail(request.response(), method.fullMethodName(), ar.cause());
          }
        });
    });
    return this;
  }

  public <Req, Resp> GrpcEndpoint streaming(ServiceMethod<Req, Resp> method, Streaming<Req, Resp> handler) {
    builder.bind(method, request -> {
      try {
        handler.call(caller(request), request);
      } catch (RuntimeException e) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), e);
      }
    });
    return this;
  }

  public Service build() {
    return builder.build();
  }

  /** The gate already verified the token; verifying again is a few microseconds and keeps no state. */
  private Caller caller(GrpcServerRequest<?, ?> request) {
    return tokens.verifyHeader(request.headers().get("authorization"));
  }
}
