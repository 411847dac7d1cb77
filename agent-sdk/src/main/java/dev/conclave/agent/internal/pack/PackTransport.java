package dev.conclave.agent.internal.pack;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;

/** The gRPC client a pack talks through: the Register stream and the ToolResult calls share it. */
final class PackTransport {

  /** What ordinary gRPC stacks accept; Vert.x's own default (256 KiB) is too small for tool inputs. */
  static final int MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

  private PackTransport() {
  }

  static GrpcClient client(PackConfig config) {
    HttpClientOptions http = config.httpClientOptions() != null
      ? new HttpClientOptions(config.httpClientOptions()) : new HttpClientOptions();
    http.setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))
      // gRPC speaks HTTP/2 with prior knowledge; an HTTP/1.1 upgrade attempt would stall the call
      .setProtocolVersion(HttpVersion.HTTP_2)
      .setHttp2ClearTextUpgrade(false);
    GrpcClientOptions grpc = new GrpcClientOptions()
      .setMaxMessageSize(MAX_MESSAGE_BYTES)
      // ToolResult calls carry a grpc-timeout; the client cancels them when it passes
      .setScheduleDeadlineAutomatically(true);
    return GrpcClient.client(config.vertx(), grpc, http);
  }
}
