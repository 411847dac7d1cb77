package dev.conclave.platform.server;

import com.google.protobuf.Descriptors.ServiceDescriptor;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.audit.AuditTargets;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/**
 * Builds a gRPC service whose methods each declare who may call them ({@link Audience}) and what they
 * act on ({@link Resource}); the declaration goes into the node's route table and the audience is
 * enforced before the handler runs. Handlers receive the {@link Caller} the gate verified, and
 * failures end the call with the precise status ({@link GrpcFailures}). The result carries the
 * service descriptor, so reflection lists it.
 */
public final class GrpcEndpoint {

  /** A unary method: one request in, one response (or failure) out. */
  @FunctionalInterface
  public interface Unary<Req, Resp> {
    Future<Resp> call(Caller caller, Req request);
  }

  /** A server-streaming method: one request in (decoded and bounded here), a stream of responses out. */
  @FunctionalInterface
  public interface ServerStreaming<Req, Resp> {
    void call(Caller caller, Req message, GrpcServerRequest<Req, Resp> request);
  }

  /** A streaming method, handled on the raw request and response streams (frames decoded with {@link GrpcMessages}). */
  @FunctionalInterface
  public interface Streaming<Req, Resp> {
    void call(Caller caller, GrpcServerRequest<Req, Resp> request);
  }

  private final ServiceBuilder builder;
  private final EdgeSecurity edge;

  private GrpcEndpoint(ServiceBuilder builder, EdgeSecurity edge) {
    this.builder = builder;
    this.edge = edge;
  }

  public static GrpcEndpoint service(ServiceName name, ServiceDescriptor descriptor, EdgeSecurity edge) {
    return new GrpcEndpoint(Service.service(name, descriptor), edge);
  }

  public <Req, Resp> GrpcEndpoint unary(ServiceMethod<Req, Resp> method, Audience audience, Resource resource, Unary<Req, Resp> handler) {
    edge.routes().grpc(method.fullMethodName(), audience, resource);
    boolean audited = AuditTargets.audited(method.fullMethodName());
    builder.bind(method, request -> {
      Caller caller;
      try {
        caller = caller(request, method, audience);
      } catch (RuntimeException e) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), e);
        return;
      }
      Object[] message = {null};
      edge.messages().single(request, method.decoder())
        .compose(m -> {
          message[0] = m;
          return handler.call(caller, m);
        })
        .onComplete(ar -> {
          if (audited) {
            edge.audit(caller, "grpc " + method.fullMethodName(), AuditTargets.of(message[0]), ar.failed() ? ar.cause() : null,
              remote(request));
          }
          if (ar.succeeded()) {
            request.response().end(ar.result());
          } else {
            GrpcFailures.fail(request.response(), method.fullMethodName(), ar.cause());
          }
        });
    });
    return this;
  }

  public <Req, Resp> GrpcEndpoint streaming(ServiceMethod<Req, Resp> method, Audience audience, Resource resource,
                                            Streaming<Req, Resp> handler) {
    edge.routes().grpc(method.fullMethodName(), audience, resource);
    builder.bind(method, request -> {
      try {
        handler.call(caller(request, method, audience), request);
      } catch (RuntimeException e) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), e);
      }
    });
    return this;
  }

  public <Req, Resp> GrpcEndpoint serverStreaming(ServiceMethod<Req, Resp> method, Audience audience, Resource resource,
                                                  ServerStreaming<Req, Resp> handler) {
    return streaming(method, audience, resource, (caller, request) -> edge.messages().single(request, method.decoder()).onComplete(ar -> {
      if (ar.failed()) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), ar.cause());
        return;
      }
      try {
        handler.call(caller, ar.result(), request);
      } catch (RuntimeException e) {
        GrpcFailures.fail(request.response(), method.fullMethodName(), e);
      }
    }));
  }

  public Service build() {
    return builder.build();
  }

  /** The caller the gate verified, if the method's audience admits it (refusals are audited); a call that bypassed the gate has none. */
  private Caller caller(GrpcServerRequest<?, ?> request, ServiceMethod<?, ?> method, Audience audience) {
    Caller caller = edge.callers().take(request.headers()).orElseThrow(AuthErrors::missingToken);
    try {
      audience.check(caller, method.fullMethodName());
    } catch (RuntimeException refused) {
      edge.audit(caller, "grpc " + method.fullMethodName(), "", refused, remote(request));
      throw refused;
    }
    return caller;
  }

  static String remote(GrpcServerRequest<?, ?> request) {
    return request.connection() == null || request.connection().remoteAddress() == null ? ""
      : request.connection().remoteAddress().toString();
  }
}
