package dev.conclave.e2e.interop;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ApproveToolResponse;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ListAgentsRequest;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java side of the interop test: a client with the admin token talking to a node on 127.0.0.1
 * over gRPC (ClientService) and HTTP (the gateway's {@code /api/v1/gateway} routes). Blocking; tests only.
 */
final class AdminClient implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final GrpcCalls grpc;
  private final WebClient web;
  private final int httpPort;
  private final String authorization;

  AdminClient(int grpcPort, int httpPort, String adminToken) {
    this.grpc = new GrpcCalls(vertx, grpcPort);
    this.web = WebClient.create(vertx);
    this.httpPort = httpPort;
    this.authorization = GrpcCalls.bearer(adminToken);
  }

  /** SendMessage to a conversation; expects it accepted and returns the request id. */
  String send(String conversationKey, String content) {
    var outcome = grpc.unary(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder()
      .setConversationKey(conversationKey).setContent(content).setIdempotencyKey(UUID.randomUUID().toString()).build(), authorization);
    assertThat(outcome.status()).as("SendMessage: %s", outcome.message()).isEqualTo(GrpcStatus.OK);
    assertThat(outcome.response().orElseThrow().getStatus()).isEqualTo("accepted");
    return outcome.response().orElseThrow().getMessageId();
  }

  /** What StreamEvents shows of one request of the conversation. */
  RequestFeed feed(String conversationKey, String requestId) {
    return RequestFeed.of(grpc, authorization, conversationKey, requestId);
  }

  ApproveToolResponse approveTool(String agentId, String toolId, boolean approved) {
    return grpc.unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder()
      .setAgentId(agentId).setToolId(toolId).setApproved(approved).build(), authorization).response().orElseThrow();
  }

  Optional<AgentInfo> listedAgent(String agentId) {
    var outcome = grpc.unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), authorization);
    assertThat(outcome.status()).as("ListAgents: %s", outcome.message()).isEqualTo(GrpcStatus.OK);
    return outcome.response().orElseThrow().getAgentsList().stream().filter(a -> a.getId().equals(agentId)).findFirst();
  }

  /** Waits up to 10 s until ListAgents shows the agent with this connected flag. */
  void awaitConnected(String agentId, boolean connected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (listedAgent(agentId).map(AgentInfo::getConnected).orElse(false) == connected) {
        return;
      }
      sleep(100);
    }
    throw new AssertionError("ListAgents never showed " + agentId + " connected=" + connected);
  }

  /** Waits up to 10 s until {@code GET /injections/:id} reports the state; returns what it reported. */
  JsonObject awaitInjectionState(String injectionId, String state) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    JsonObject last = null;
    while (System.nanoTime() < deadline) {
      last = get("/api/v1/gateway/injections/" + injectionId).bodyAsJsonObject();
      if (state.equals(last.getString("state"))) {
        return last;
      }
      sleep(100);
    }
    throw new AssertionError("injection " + injectionId + " never became " + state + "; last seen: " + last);
  }

  /** A GET that must answer 200. */
  HttpResponse<Buffer> get(String path) {
    HttpResponse<Buffer> r = Await.await(web.get(httpPort, "127.0.0.1", path).putHeader("authorization", authorization).send());
    assertThat(r.statusCode()).as("GET %s: %s", path, r.bodyAsString()).isEqualTo(200);
    return r;
  }

  HttpResponse<Buffer> post(String path, JsonObject body) {
    return Await.await(postAsync(path, body));
  }

  /** A POST not waited for: a burst of them reaches the node together. */
  io.vertx.core.Future<HttpResponse<Buffer>> postAsync(String path, JsonObject body) {
    return web.post(httpPort, "127.0.0.1", path).putHeader("authorization", authorization).sendJsonObject(body);
  }

  @Override
  public void close() throws Exception {
    web.close();
    grpc.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
