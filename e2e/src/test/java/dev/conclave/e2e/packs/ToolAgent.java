package dev.conclave.e2e.packs;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import dev.conclave.platform.testing.Await;

/**
 * A Java Coven agent on a real AgentStream (Vert.x gRPC client) that uses pack tools: it registers
 * with capabilities, keeps its Welcome, heartbeats, and runs tools with {@code ExecutePackTool},
 * matching each {@code PackToolResult} to its call by request id. Blocking helpers; tests only.
 */
public final class ToolAgent implements AutoCloseable {

  private final Vertx vertx;
  private final GrpcClientRequest<AgentMessage, ServerMessage> stream;
  private final CompletableFuture<ServerMessage> first = new CompletableFuture<>();
  private final CompletableFuture<String> end = new CompletableFuture<>();
  private final Map<String, CompletableFuture<PackToolResult>> calls = new ConcurrentHashMap<>();
  private volatile long heartbeat = -1;
  private Welcome welcome;

  private ToolAgent(Vertx vertx, GrpcClientRequest<AgentMessage, ServerMessage> stream) {
    this.vertx = vertx;
    this.stream = stream;
  }

  /** Connects to a node, registers and waits for the Welcome; fails the test on anything else. */
  public static ToolAgent register(Vertx vertx, GrpcClient client, int grpcPort, String token, String agentId, List<String> capabilities) {
    GrpcClientRequest<AgentMessage, ServerMessage> req = Await.await(client.request(SocketAddress.inetSocketAddress(grpcPort, "127.0.0.1"),
      CovenControlGrpcClient.AgentStream), Duration.ofSeconds(10), "open AgentStream");
    req.headers().set("authorization", "Bearer " + token);
    ToolAgent agent = new ToolAgent(vertx, req);
    req.response().onComplete(ar -> {
      if (ar.failed()) {
        agent.ended("stream failed: " + ar.cause());
        return;
      }
      var resp = ar.result();
      resp.handler(agent::onMessage);
      resp.endHandler(v -> agent.ended("ended: " + resp.status() + " " + resp.statusMessage()));
      resp.exceptionHandler(err -> agent.ended("failed: " + err));
    });
    req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId(agentId).setName("tool agent " + agentId)
      .addAllCapabilities(capabilities).setMetadata(AgentMetadata.newBuilder().setBackend("direct").setOs("linux"))).build());
    ServerMessage reply = await(agent.first, Duration.ofSeconds(15), "Welcome for " + agentId);
    if (!reply.hasWelcome()) {
      agent.close();
      throw new AssertionError("registration of " + agentId + " refused: " + reply);
    }
    agent.welcome = reply.getWelcome();
    agent.heartbeat = vertx.setPeriodic(5000, t -> agent.send(AgentMessage.newBuilder()
      .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build()));
    return agent;
  }

  private void onMessage(ServerMessage m) {
    if (m.hasPackToolResult()) {
      CompletableFuture<PackToolResult> call = calls.remove(m.getPackToolResult().getRequestId());
      if (call != null) {
        call.complete(m.getPackToolResult());
      }
      return;
    }
    first.complete(m);
  }

  private void ended(String how) {
    end.complete(how);
    first.completeExceptionally(new IllegalStateException("the stream " + how));
    calls.values().forEach(c -> c.completeExceptionally(new IllegalStateException("the agent's stream " + how)));
  }

  Welcome welcome() {
    return welcome;
  }

  public List<String> toolNames() {
    return welcome.getAvailableToolsList().stream().map(ToolDefinition::getName).sorted().toList();
  }

  /** Sends {@code ExecutePackTool}; the future completes with the one {@code PackToolResult}. */
  public CompletableFuture<PackToolResult> call(String tool, String inputJson) {
    String id = UUID.randomUUID().toString();
    CompletableFuture<PackToolResult> result = new CompletableFuture<>();
    if (end.isDone()) {
      result.completeExceptionally(new IllegalStateException("the agent's stream " + end.getNow("")));
      return result;
    }
    calls.put(id, result);
    send(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder().setRequestId(id).setToolName(tool)
      .setInputJson(inputJson)).build());
    return result;
  }

  /** Runs a tool and waits up to {@code limit} for its result. */
  PackToolResult callAndWait(String tool, String inputJson, Duration limit) {
    return await(call(tool, inputJson), limit, "the result of " + tool);
  }

  private void send(AgentMessage m) {
    stream.write(m).onFailure(err -> ended("write failed: " + err.getMessage()));
  }

  @Override
  public void close() {
    vertx.cancelTimer(heartbeat);
    if (!end.isDone()) {
      try {
        stream.cancel();
      } catch (RuntimeException alreadyGone) {
        // the stream ended meanwhile
      }
    }
  }

  public static <T> T await(CompletableFuture<T> future, Duration limit, String what) {
    try {
      return future.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("no " + what + " within " + limit.toSeconds() + " s");
    } catch (Exception e) {
      throw new AssertionError(what + " failed: " + e.getMessage(), e);
    }
  }
}
