package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

/**
 * A non-blocking Coven agent on its own connection: answers each SendMessage at once with
 * {@code chunks} text chunks and done. The gateway hands it one request at a time, so at most
 * {@code chunks + 1} messages are ever queued on its stream. Given a {@link GrpcClient}, it opens its
 * stream through that client's pool instead (see {@link AgentConnections}), and leaves the client open.
 */
final class BenchAgent extends VerticleBase {

  private static final long HEARTBEAT_MS = 15_000;

  private final SocketAddress address;
  private final String token;
  private final String agentId;
  private final int chunks;
  private final Promise<Void> registered = Promise.promise();
  private final GrpcClient shared;
  private GrpcClient client;
  private GrpcClientRequest<AgentMessage, ServerMessage> stream;
  private long heartbeat = -1;
  private boolean stopping;

  BenchAgent(SocketAddress address, String token, String agentId, int chunks) {
    this(null, address, token, agentId, chunks);
  }

  /** On a connection of {@code shared}'s pool ({@code null}: a client, and so a connection, of its own). */
  BenchAgent(GrpcClient shared, SocketAddress address, String token, String agentId, int chunks) {
    this.shared = shared;
    this.address = address;
    this.token = token;
    this.agentId = agentId;
    this.chunks = chunks;
  }

  /** Deployed once the gateway welcomed it. */
  @Override
  public Future<?> start() {
    client = shared != null ? shared : GrpcClient.client(vertx);
    return client.request(address, CovenControlGrpcClient.AgentStream).compose(req -> {
      stream = req;
      req.headers().set("authorization", "Bearer " + token);
      req.response().onComplete(ar -> {
        if (ar.failed()) {
          registered.tryFail(ar.cause());
          return;
        }
        var resp = ar.result();
        resp.handler(this::onMessage);
        resp.endHandler(v -> lost(resp.status() + " " + resp.statusMessage()));
        resp.exceptionHandler(err -> lost(String.valueOf(err)));
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder()
        .setAgentId(agentId)
        .setName("bench " + agentId)
        .addCapabilities("chat")
        .setMetadata(AgentMetadata.newBuilder().setBackend("bench").setOs("linux").addWorkspaces("bench"))).build());
      return registered.future();
    }).onSuccess(v -> heartbeat = vertx.setPeriodic(HEARTBEAT_MS, t -> stream.write(AgentMessage.newBuilder()
      .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build())));
  }

  private void onMessage(ServerMessage m) {
    switch (m.getPayloadCase()) {
      case WELCOME -> registered.tryComplete();
      case REGISTRATION_ERROR -> registered.tryFail("registration refused: " + m.getRegistrationError().getReason());
      case SEND_MESSAGE -> answer(m.getSendMessage().getRequestId());
      default -> {
        // nothing else is expected of an echo agent
      }
    }
  }

  private void answer(String requestId) {
    for (int i = 0; i < chunks; i++) {
      stream.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(requestId).setText("chunk " + i + " ")).build());
    }
    stream.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(requestId).setDone(Done.getDefaultInstance())).build());
  }

  private void lost(String why) {
    registered.tryFail("stream ended before Welcome: " + why);
    if (!stopping) {
      System.err.println("bench: agent " + agentId + " lost its stream: " + why);
    }
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(heartbeat);
    if (stream != null) {
      try {
        stream.end();
      } catch (RuntimeException alreadyEnded) {
        // the node ended it
      }
    }
    return shared != null ? Future.succeededFuture() : client.close();
  }
}
