package dev.conclave.e2e.support;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

/**
 * A minimal agent that runs as its own OS process, so tests can kill it like a real one.
 * Arguments: port token agentId mode, where mode is "echo" (answer "echo: content" then done) or
 * "hang" (answer one text chunk, then never finish). It prints "registered" and "got <requestId>"
 * on stdout for the test to follow.
 */
public final class ScriptedAgentMain {

  private ScriptedAgentMain() {
  }

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    String token = args[1];
    String agentId = args[2];
    boolean hang = args[3].equals("hang");
    Vertx vertx = Vertx.vertx();
    GrpcClient client = GrpcClient.client(vertx);
    client.request(SocketAddress.inetSocketAddress(port, "127.0.0.1"), CovenControlGrpcClient.AgentStream).onSuccess(req -> {
      req.headers().set("authorization", "Bearer " + token);
      req.response().onSuccess(resp -> {
        resp.handler(m -> onMessage(req, m, hang));
        resp.endHandler(v -> {
          System.out.println("ended " + resp.status());
          System.exit(0);
        });
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId(agentId).setName(agentId)
        .setMetadata(AgentMetadata.newBuilder().setBackend("direct").setHostname("e2e"))).build());
      vertx.setPeriodic(1000, t -> req.write(AgentMessage.newBuilder()
        .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build()));
    }).onFailure(err -> {
      System.out.println("failed " + err.getMessage());
      System.exit(1);
    });
  }

  private static void onMessage(GrpcClientRequest<AgentMessage, ServerMessage> req, ServerMessage m, boolean hang) {
    if (m.hasWelcome()) {
      System.out.println("registered " + m.getWelcome().getServerId());
      return;
    }
    if (!m.hasSendMessage()) {
      return;
    }
    String id = m.getSendMessage().getRequestId();
    System.out.println("got " + id);
    req.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id)
      .setText(hang ? "working on it" : "echo: " + m.getSendMessage().getContent())).build());
    if (!hang) {
      req.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setDone(Done.getDefaultInstance())).build());
    }
  }
}
