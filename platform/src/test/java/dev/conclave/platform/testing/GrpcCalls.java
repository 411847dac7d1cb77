package dev.conclave.platform.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Makes real gRPC calls against a test node, with or without a bearer token, and reports the outcome. */
public final class GrpcCalls implements AutoCloseable {

  /** How a unary call ended. */
  public record Outcome<T>(GrpcStatus status, String message, Optional<T> response) {
  }

  private final GrpcClient client;
  private final SocketAddress address;

  public GrpcCalls(Vertx vertx, int port) {
    // the limit ordinary gRPC clients (grpc-go, grpc-java, grpc-js) apply to what they receive
    this.client = GrpcClient.client(vertx, new io.vertx.grpc.client.GrpcClientOptions().setMaxMessageSize(4 * 1024 * 1024));
    this.address = SocketAddress.inetSocketAddress(port, "127.0.0.1");
  }

  /** Calls over the given HTTP client options (TLS, for example) to {@code host}. */
  public GrpcCalls(Vertx vertx, String host, int port, io.vertx.core.http.HttpClientOptions http) {
    this.client = GrpcClient.client(vertx, new io.vertx.grpc.client.GrpcClientOptions().setMaxMessageSize(4 * 1024 * 1024), http);
    this.address = SocketAddress.inetSocketAddress(port, host);
  }

  public GrpcClient client() {
    return client;
  }

  public SocketAddress address() {
    return address;
  }

  /** Opens a request with the authorization header set (when {@code authorization} is not null). */
  public <Resp, Req> Future<GrpcClientRequest<Req, Resp>> open(ServiceMethod<Resp, Req> method, String authorization) {
    return client.request(address, method).map(request -> {
      if (authorization != null) {
        request.headers().set("authorization", authorization);
      }
      return request;
    });
  }

  /** A unary call; blocks (tests only). */
  public <Resp, Req> Outcome<Resp> unary(ServiceMethod<Resp, Req> method, Req message, String authorization) {
    Future<Outcome<Resp>> outcome = open(method, authorization)
      .compose(request -> request.send(message))
      .compose(response -> response.last()
        .map(body -> new Outcome<>(response.status(), response.statusMessage(), Optional.of(body)))
        .recover(err -> Future.succeededFuture(new Outcome<>(response.status(),
          response.status() == null ? "call failed: " + err : response.statusMessage(), Optional.empty()))));
    try {
      return outcome.await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("gRPC call " + method.fullMethodName() + " failed: " + e, e);
    }
  }

  public static String bearer(String token) {
    return "Bearer " + token;
  }

  @Override
  public void close() {
    client.close();
  }
}
