package dev.conclave.e2e.console;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Many agents on raw {@code AgentStream}s over one HTTP/2 connection: enough of them to show that
 * the console stays usable with a big fleet. They register and then only hold their streams.
 */
final class ManyAgents implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final GrpcClient client = GrpcClient.client(vertx);
  private final SocketAddress node;
  private final String token;
  private final List<GrpcClientRequest<AgentMessage, ServerMessage>> streams = new ArrayList<>();

  ManyAgents(int grpcPort, String token) {
    this.node = SocketAddress.inetSocketAddress(grpcPort, "127.0.0.1");
    this.token = token;
  }

  static String id(int i) {
    return String.format("fleet-%04d", i);
  }

  /** Registers agents {@code from} to {@code to} (exclusive), {@code parallel} at a time; returns when all are welcomed. */
  void connect(int from, int to, int parallel) throws Exception {
    for (int start = from; start < to; start += parallel) {
      List<Future<Void>> batch = new ArrayList<>();
      for (int i = start; i < Math.min(to, start + parallel); i++) {
        batch.add(register(id(i)));
      }
      Future.all(batch).await(60, TimeUnit.SECONDS);
    }
  }

  private Future<Void> register(String agentId) {
    Promise<Void> welcomed = Promise.promise();
    return client.request(node, CovenControlGrpcClient.AgentStream).compose(req -> {
      synchronized (streams) {
        streams.add(req);
      }
      req.headers().set("authorization", "Bearer " + token);
      req.response().onSuccess(resp -> resp.handler(msg -> {
        if (msg.hasWelcome()) {
          welcomed.tryComplete();
        }
      })).onFailure(welcomed::tryFail);
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder()
        .setAgentId(agentId)
        .setName("Fleet agent " + agentId.substring(6))
        .addCapabilities("chat")
        .setMetadata(AgentMetadata.newBuilder().setHostname("fleet-host").setOs("linux").setBackend("fleet")
          .setWorkingDirectory("/work/" + agentId).addWorkspaces("fleet"))).build());
      return welcomed.future();
    });
  }

  @Override
  public void close() {
    synchronized (streams) {
      streams.forEach(GrpcClientRequest::cancel);
    }
    client.close();
    vertx.close();
  }
}
