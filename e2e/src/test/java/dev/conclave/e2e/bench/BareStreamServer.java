package dev.conclave.e2e.bench;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.server.ServerOptions;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcService;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.grpc.server.GrpcProtocol;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;

import java.util.Map;

/**
 * The floor under {@link AgentMemoryBench}: a process that holds agents' {@code AgentStream} calls
 * on the node's own HTTP/2 and gRPC server settings ({@link ServerOptions#grpc}, the same
 * {@link GrpcServerOptions}, native transport, two event loops) and does nothing else. It answers an
 * agent's first message with a Welcome and keeps the stream open; no authentication, no database, no
 * session. What a connected idle agent costs here is what Vert.x and Netty cost, whatever the node
 * does. Started by {@code AgentMemoryBench -Dbench.server=bare}, on the node jar's classpath.
 */
public final class BareStreamServer extends VerticleBase {

  private final ConclaveConfig config;

  private BareStreamServer(ConclaveConfig config) {
    this.config = config;
  }

  public static void main(String[] args) {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_GRPC_PORT", args[0], "CONCLAVE_BIND_HOST", "127.0.0.1"));
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    vertx.deployVerticle(() -> new BareStreamServer(config), new DeploymentOptions().setInstances(2))
      .onSuccess(id -> System.out.println("bare server ready on " + config.grpcPort() + " (native transport: " + vertx.isNativeTransportEnabled() + ")"))
      .onFailure(err -> {
        err.printStackTrace();
        System.exit(1);
      });
  }

  @Override
  public Future<?> start() {
    GrpcServer grpc = GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(config.maxMessageBytes())
      .removeEnabledProtocol(GrpcProtocol.TRANSCODING));
    grpc.callHandler(CovenControlGrpcService.AgentStream, this::hold);
    // no idle timeout: the node drops it once a call authenticates, and nothing authenticates here
    return vertx.createHttpServer(ServerOptions.grpc(config).setIdleTimeout(0)).requestHandler(grpc).listen();
  }

  private void hold(GrpcServerRequest<AgentMessage, ServerMessage> call) {
    call.handler(message -> {
      if (message.hasRegister()) {
        call.response().write(ServerMessage.newBuilder().setWelcome(Welcome.newBuilder()
          .setServerId("bare").setAgentId(message.getRegister().getAgentId()).setInstanceId("bare")).build());
      }
    });
    call.endHandler(v -> call.response().end());
  }
}
