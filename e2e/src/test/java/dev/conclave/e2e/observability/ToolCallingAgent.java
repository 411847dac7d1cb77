package dev.conclave.e2e.observability;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Coven agent on real AgentStreams that works on each request by calling one pack tool and then
 * answers with the tool's output and done. When its stream ends (its node killed) it registers again
 * at the next node. A request it is told to hold stays unanswered: the agent is busy with it when its
 * node dies. Blocking-free; state on its own context.
 */
final class ToolCallingAgent implements AutoCloseable {

  private final Vertx vertx;
  private final GrpcClient client;
  private final List<SocketAddress> endpoints;
  private final String token;
  private final String agentId;
  private final String tool;
  /** Request id → the node (Welcome.server_id) that had the agent's stream when it answered. */
  private final Map<String, String> answeredOn = new ConcurrentHashMap<>();
  /** Request id → the node that delivered it. */
  private final Map<String, String> deliveredOn = new ConcurrentHashMap<>();
  /** Tool call id → request id. */
  private final Map<String, String> calls = new ConcurrentHashMap<>();
  private volatile String server = "";
  private volatile boolean holdNext;
  private volatile boolean stopped;
  private GrpcClientRequest<AgentMessage, ServerMessage> current;
  private long heartbeat = -1;
  private int next;

  ToolCallingAgent(Vertx vertx, GrpcClient client, List<SocketAddress> endpoints, int first, String token, String agentId, String tool) {
    this.vertx = vertx;
    this.client = client;
    this.endpoints = endpoints;
    this.next = first;
    this.token = token;
    this.agentId = agentId;
    this.tool = tool;
  }

  void start() {
    vertx.runOnContext(v -> connect());
  }

  /** The next request delivered is left unanswered. */
  void holdNext() {
    holdNext = true;
  }

  /** The node the agent's stream is on now; empty between streams. */
  String servedBy() {
    return server;
  }

  Map<String, String> deliveredOn() {
    return deliveredOn;
  }

  Map<String, String> answeredOn() {
    return answeredOn;
  }

  private void connect() {
    if (stopped) {
      return;
    }
    SocketAddress endpoint = endpoints.get(next % endpoints.size());
    client.request(endpoint, CovenControlGrpcClient.AgentStream).onComplete(ar -> {
      if (ar.failed()) {
        retry();
        return;
      }
      GrpcClientRequest<AgentMessage, ServerMessage> req = ar.result();
      current = req;
      req.headers().set("authorization", "Bearer " + token);
      req.response().onComplete(resp -> {
        if (resp.failed()) {
          lost(req);
          return;
        }
        resp.result().handler(m -> onMessage(req, m));
        resp.result().endHandler(v -> lost(req));
        resp.result().exceptionHandler(err -> lost(req));
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId(agentId).setName(agentId)
        .setMetadata(AgentMetadata.newBuilder().setBackend("direct"))).build()).onFailure(err -> lost(req));
    });
  }

  private void onMessage(GrpcClientRequest<AgentMessage, ServerMessage> req, ServerMessage m) {
    if (m.hasWelcome()) {
      server = m.getWelcome().getServerId();
      heartbeat = vertx.setPeriodic(2000, t -> write(req, AgentMessage.newBuilder()
        .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build()));
    } else if (m.hasSendMessage()) {
      String id = m.getSendMessage().getRequestId();
      deliveredOn.put(id, server);
      if (holdNext) {
        holdNext = false;
        return;
      }
      String callId = UUID.randomUUID().toString();
      calls.put(callId, id);
      write(req, AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder().setRequestId(callId).setToolName(tool)
        .setInputJson(new JsonObject().put("text", id).encode())).build());
    } else if (m.hasPackToolResult()) {
      String id = calls.remove(m.getPackToolResult().getRequestId());
      if (id == null) {
        return;
      }
      String text = m.getPackToolResult().hasOutputJson() ? m.getPackToolResult().getOutputJson() : "tool failed: " + m.getPackToolResult().getError();
      write(req, AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setText(text)).build());
      write(req, AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setDone(Done.getDefaultInstance())).build());
      answeredOn.put(id, server);
    }
  }

  private void write(GrpcClientRequest<AgentMessage, ServerMessage> req, AgentMessage m) {
    req.write(m).onFailure(err -> lost(req));
  }

  private void lost(GrpcClientRequest<AgentMessage, ServerMessage> req) {
    if (current != req) {
      return;
    }
    current = null;
    server = "";
    vertx.cancelTimer(heartbeat);
    retry();
  }

  private void retry() {
    next++;
    if (!stopped) {
      vertx.setTimer(500, t -> connect());
    }
  }

  @Override
  public void close() {
    stopped = true;
    vertx.runOnContext(v -> {
      vertx.cancelTimer(heartbeat);
      if (current != null) {
        try {
          current.cancel();
        } catch (RuntimeException alreadyGone) {
          // the stream ended meanwhile
        }
      }
    });
  }
}
