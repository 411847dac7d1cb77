package dev.conclave.platform.auth.ssh;

import com.google.protobuf.Empty;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.util.Map;
import java.util.Optional;

import static dev.conclave.platform.testing.Await.await;

/** GetMe over real gRPC with whatever headers a test gives (the x-ssh-* ones), and how it ended. */
final class SshCalls implements AutoCloseable {

  private final GrpcClient client;

  SshCalls(Vertx vertx) {
    this.client = GrpcClient.client(vertx);
  }

  Future<GrpcCalls.Outcome<MeResponse>> getMe(int port, Map<String, String> headers) {
    return client.request(SocketAddress.inetSocketAddress(port, "127.0.0.1"), ClientServiceGrpcClient.GetMe)
      .compose(request -> {
        headers.forEach(request.headers()::set);
        return request.send(Empty.getDefaultInstance());
      })
      .compose(response -> response.last()
        .map(body -> new GrpcCalls.Outcome<>(response.status(), response.statusMessage(), Optional.of(body)))
        .recover(err -> Future.succeededFuture(new GrpcCalls.Outcome<MeResponse>(response.status(),
          response.status() == null ? "call failed: " + err : response.statusMessage(), Optional.empty()))));
  }

  GrpcCalls.Outcome<MeResponse> getMeNow(int port, Map<String, String> headers) {
    return await(getMe(port, headers));
  }

  /** GetMe with every value of {@code headers} sent, repeated names included. */
  GrpcCalls.Outcome<MeResponse> getMeNow(int port, io.vertx.core.MultiMap headers) {
    return await(client.request(SocketAddress.inetSocketAddress(port, "127.0.0.1"), ClientServiceGrpcClient.GetMe)
      .compose(request -> {
        request.headers().addAll(headers);
        return request.send(Empty.getDefaultInstance());
      })
      .compose(response -> response.last()
        .map(body -> new GrpcCalls.Outcome<>(response.status(), response.statusMessage(), Optional.of(body)))
        .recover(err -> Future.succeededFuture(new GrpcCalls.Outcome<MeResponse>(response.status(),
          response.status() == null ? "call failed: " + err : response.statusMessage(), Optional.empty())))));
  }

  @Override
  public void close() {
    client.close();
  }
}
