package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcService;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.server.GrpcServer;

/**
 * The pack benchmark's baseline: a bare Vert.x gRPC server speaking {@code CovenControl/AgentStream}
 * with the same messages and HTTP/2 settings as the node, and nothing in between: a register is
 * answered with a Welcome, each {@code ExecutePackTool} at once with a {@code PackToolResult} whose
 * output is the call's input. No authentication, registry, event bus, pack or storage. So
 * {@link ToolCallAgent} drives it exactly as it drives a node. Deploy one instance per event loop.
 */
final class BareToolEcho extends VerticleBase {

  private final int port;
  private HttpServer http;

  BareToolEcho(int port) {
    this.port = port;
  }

  @Override
  public Future<?> start() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(CovenControlGrpcService.AgentStream, call -> {
      call.handler((AgentMessage m) -> {
        switch (m.getPayloadCase()) {
          case REGISTER -> call.response().write(ServerMessage.newBuilder().setWelcome(Welcome.newBuilder()
            .setServerId("bare").setAgentId(m.getRegister().getAgentId())).build());
          case EXECUTE_PACK_TOOL -> call.response().write(ServerMessage.newBuilder().setPackToolResult(PackToolResult.newBuilder()
            .setRequestId(m.getExecutePackTool().getRequestId()).setOutputJson(m.getExecutePackTool().getInputJson())).build());
          default -> {
            // heartbeats
          }
        }
      });
      call.endHandler(v -> call.response().end());
    });
    // the node's gRPC port settings (as BareEcho)
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
