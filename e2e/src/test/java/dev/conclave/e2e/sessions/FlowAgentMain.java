package dev.conclave.e2e.sessions;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.ToolResult;
import dev.conclave.proto.coven.ToolUse;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

/**
 * A Coven agent, in its own process, that plays the model's side of seed 004's two diagrams.
 * Arguments: port token agentId. By the request's content:
 * <ul>
 *   <li>{@code basic: …}: asks approval for an exec; once allowed, runs it (tool use and result),
 *   applies a patch without asking (tool use and result), then answers and is done;</li>
 *   <li>{@code interrupt: …}: runs one exec, starts a second and waits, until cancelled;</li>
 *   <li>anything else: runs one exec, answers and is done.</li>
 * </ul>
 * It declares {@code cancellation} and prints {@code registered}, {@code got <content>},
 * {@code approved <id>} and {@code cancel <request>} for the test to follow.
 */
public final class FlowAgentMain {

  private static GrpcClientRequest<AgentMessage, ServerMessage> stream;

  private FlowAgentMain() {
  }

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    String token = args[1];
    String agentId = args[2];
    Vertx vertx = Vertx.vertx();
    GrpcClient.client(vertx).request(SocketAddress.inetSocketAddress(port, "127.0.0.1"), CovenControlGrpcClient.AgentStream).onSuccess(req -> {
      stream = req;
      req.headers().set("authorization", "Bearer " + token);
      req.response().onSuccess(resp -> {
        resp.handler(FlowAgentMain::onMessage);
        resp.endHandler(v -> {
          System.out.println("ended " + resp.status());
          System.exit(0);
        });
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId(agentId).setName(agentId)
        .addProtocolFeatures("cancellation")
        .setMetadata(AgentMetadata.newBuilder().setBackend("direct").setHostname("e2e"))).build());
      vertx.setPeriodic(1000, t -> req.write(AgentMessage.newBuilder()
        .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build()));
    }).onFailure(err -> {
      System.out.println("failed " + err.getMessage());
      System.exit(1);
    });
  }

  private static String current;

  private static void onMessage(ServerMessage m) {
    if (m.hasWelcome()) {
      System.out.println("registered " + m.getWelcome().getServerId());
    } else if (m.hasSendMessage()) {
      current = m.getSendMessage().getRequestId();
      String content = m.getSendMessage().getContent();
      System.out.println("got " + content);
      if (content.startsWith("basic:")) {
        send(MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("exec-1").setName("shell")
          .setInputJson("{\"command\":\"make test\"}")));
      } else if (content.startsWith("interrupt:")) {
        exec("exec-a", "make build", "built");
        send(MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("exec-b").setName("shell").setInputJson("{\"command\":\"make slow\"}")));
      } else {
        exec("exec-c", "cat notes.txt", "notes");
        send(MessageResponse.newBuilder().setText("done: " + content));
        send(MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      }
    } else if (m.hasToolApproval()) {
      System.out.println("approved " + m.getToolApproval().getId() + " " + m.getToolApproval().getApproved());
      exec("exec-1", "make test", "2 tests failed");
      send(MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("patch-1").setName("apply_patch").setInputJson("{\"file\":\"a.c\"}")));
      send(MessageResponse.newBuilder().setToolResult(ToolResult.newBuilder().setId("patch-1").setOutput("patched a.c")));
      send(MessageResponse.newBuilder().setText("Fixed "));
      send(MessageResponse.newBuilder().setText("the bug."));
      send(MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
    } else if (m.hasCancelRequest()) {
      System.out.println("cancel " + m.getCancelRequest().getReason());
      send(MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(m.getCancelRequest().getReason())));
    } else if (m.hasShutdown()) {
      System.out.println("shutdown " + m.getShutdown().getReason());
    }
  }

  private static void exec(String id, String command, String output) {
    send(MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId(id).setName("shell").setInputJson("{\"command\":\"" + command + "\"}")));
    send(MessageResponse.newBuilder().setToolResult(ToolResult.newBuilder().setId(id).setOutput(output)));
  }

  private static void send(MessageResponse.Builder r) {
    stream.write(AgentMessage.newBuilder().setResponse(r.setRequestId(current)).build());
  }
}
