package dev.conclave.agent.internal;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;

/** The gRPC client an agent client talks through. */
final class Transport {

  private Transport() {
  }

  static GrpcClient client(ClientConfig config) {
    HttpClientOptions http = config.httpClientOptions() != null
      ? new HttpClientOptions(config.httpClientOptions()) : new HttpClientOptions();
    http.setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))
      // gRPC speaks HTTP/2 with prior knowledge; an HTTP/1.1 upgrade attempt would stall the stream
      .setProtocolVersion(HttpVersion.HTTP_2)
      .setHttp2ClearTextUpgrade(false);
    return GrpcClient.client(config.vertx(), new GrpcClientOptions(), http);
  }
}
