package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamDone;
import dev.conclave.proto.coven.TextChunk;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;

/**
 * The baseline: a bare Vert.x gRPC echo with the same messages the gateway carries, and nothing
 * else (no authentication, no storage, no agent hop).
 *
 * <ul>
 *   <li>{@code bench.Echo/Unary}: a ClientSendMessageRequest answered with one ClientSendMessageResponse.</li>
 *   <li>{@code bench.Echo/Stream}: one long-lived bidirectional stream per client; each request
 *   written on it is answered with {@code chunks} text events and a done event, the shape of a
 *   gateway round trip as its client sees it.</li>
 * </ul>
 */
final class BareEcho {

  enum Mode { UNARY, STREAM }

  static final ServiceName SERVICE = ServiceName.create("bench", "Echo");

  static final ServiceMethod<ClientSendMessageRequest, ClientSendMessageResponse> UNARY_SERVER = ServiceMethod.server(SERVICE, "Unary",
    GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(ClientSendMessageRequest.newBuilder()));
  static final ServiceMethod<ClientSendMessageResponse, ClientSendMessageRequest> UNARY_CLIENT = ServiceMethod.client(SERVICE, "Unary",
    GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(ClientSendMessageResponse.newBuilder()));
  static final ServiceMethod<ClientSendMessageRequest, ClientStreamEvent> STREAM_SERVER = ServiceMethod.server(SERVICE, "Stream",
    GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(ClientSendMessageRequest.newBuilder()));
  static final ServiceMethod<ClientStreamEvent, ClientSendMessageRequest> STREAM_CLIENT = ServiceMethod.client(SERVICE, "Stream",
    GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(ClientStreamEvent.newBuilder()));

  private BareEcho() {
  }

  /** The echo server; deploy one instance per event loop, as the node's edge does. */
  static final class Server extends VerticleBase {

    private final int port;
    private final int chunks;
    private HttpServer http;

    Server(int port, int chunks) {
      this.port = port;
      this.chunks = chunks;
    }

    @Override
    public Future<?> start() {
      GrpcServer grpc = GrpcServer.server(vertx);
      grpc.callHandler(UNARY_SERVER, call -> call.handler(m -> call.response().end(ClientSendMessageResponse.newBuilder()
        .setStatus("accepted").setMessageId(m.getIdempotencyKey()).build())));
      grpc.callHandler(STREAM_SERVER, call -> {
        call.handler(m -> {
          for (int i = 0; i < chunks; i++) {
            call.response().write(ClientStreamEvent.newBuilder().setConversationKey(m.getConversationKey())
              .setText(TextChunk.newBuilder().setContent("chunk " + i + " ")).build());
          }
          call.response().write(ClientStreamEvent.newBuilder().setConversationKey(m.getConversationKey())
            .setDone(StreamDone.getDefaultInstance()).build());
        });
        call.endHandler(v -> call.response().end());
      });
      // the same HTTP/2 settings as the node's gRPC port
      http = vertx.createHttpServer(new HttpServerOptions()
          .setHost("127.0.0.1").setPort(port)
          .setHttp2ClearTextEnabled(true).setTcpNoDelay(true)
          .setHttp2ConnectionWindowSize(8 * 1024 * 1024)
          .setInitialSettings(new Http2Settings().setInitialWindowSize(1024 * 1024).setMaxConcurrentStreams(10_001)))
        .requestHandler(grpc);
      return http.listen();
    }

    @Override
    public Future<?> stop() {
      return http.close();
    }
  }

  /** One client connection in a closed loop against the echo. */
  static final class Client extends ClosedLoop {

    private final SocketAddress address;
    private final Mode mode;
    private final int chunks;
    private final String name;
    private GrpcClient client;
    private GrpcClientRequest<ClientSendMessageRequest, ClientStreamEvent> stream;
    private int received;
    private boolean stopping;

    Client(Recorder recorder, SocketAddress address, Mode mode, int chunks, String name) {
      super(recorder);
      this.address = address;
      this.mode = mode;
      this.chunks = chunks;
      this.name = name;
    }

    @Override
    public Future<?> start() {
      client = GrpcClient.client(vertx);
      if (mode == Mode.UNARY) {
        return Future.succeededFuture();
      }
      return client.request(address, STREAM_CLIENT).compose(req -> {
        stream = req;
        req.response().onSuccess(resp -> {
          resp.handler(this::onStreamEvent);
          resp.exceptionHandler(err -> lost(String.valueOf(err)));
          resp.endHandler(v -> lost("ended: " + resp.status()));
        });
        // the call's headers go out with the first request written on it
        return Future.succeededFuture();
      });
    }

    private void onStreamEvent(ClientStreamEvent e) {
      recorder.events(1);
      received++;
      if (e.hasDone()) {
        boolean complete = received == chunks + 1;
        received = 0;
        finish(outstanding(), complete);
      }
    }

    private void lost(String why) {
      if (!stopping) {
        System.err.println("bench: " + name + " lost its echo stream: " + why);
        finish(outstanding(), false);
      }
    }

    @Override
    protected void send(long seq) {
      ClientSendMessageRequest message = ClientSendMessageRequest.newBuilder()
        .setConversationKey(name)
        .setContent("bench message " + seq + " from " + name)
        .setIdempotencyKey(name + "-" + seq)
        .build();
      if (mode == Mode.STREAM) {
        stream.write(message);
        return;
      }
      client.request(address, UNARY_CLIENT)
        .compose(req -> req.send(message))
        .compose(resp -> resp.last())
        .onComplete(ar -> {
          if (ar.succeeded()) {
            recorder.events(1);
          } else {
            System.err.println("bench: " + name + " unary echo failed: " + ar.cause());
          }
          finish(seq, ar.succeeded());
        });
    }

    @Override
    public Future<?> stop() {
      stopping = true;
      if (stream != null) {
        try {
          stream.end();
        } catch (RuntimeException alreadyEnded) {
          // the server ended it
        }
      }
      return client.close();
    }
  }
}
