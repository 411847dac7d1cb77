package dev.conclave.e2e.interop;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ApproveToolResponse;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.ToolState;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interop with a Coven agent from another gRPC stack: {@code e2e/interop/coven-agent.js}, written
 * in Node.js with {@code @grpc/grpc-js} and loading {@code coven.proto} at run time, connects to the
 * node jar running as a real process. A Java client (Vert.x gRPC and HTTP, admin token) drives it
 * through a full round trip: registration, text and usage, tool approval, cancellation,
 * injection, and both ways of stopping (SIGTERM to the agent, Shutdown from a stopping node).
 *
 * <p>The node and the agent are shared by the tests, which run in order; each test uses its own
 * requests and reads only its own requests' events.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeAgentInteropIT {

  private static final String NODE_ID = "interop-node";
  private static final String AGENT_ID = "node-grpc-js-agent";
  private static final String CANCEL_GRACE_SECONDS = "15";

  private static Path root;
  private static NodeProcess node;
  private static String agentToken;
  private static NodeAgentProcess agent;
  private static AdminClient admin;

  @BeforeAll
  static void start() throws Exception {
    String nodeVersion = NodeAgentProcess.checkPrerequisites();
    System.out.println("interop: Node.js " + nodeVersion);
    root = Files.createTempDirectory("conclave-interop");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", NODE_ID, "CONCLAVE_CANCEL_GRACE_SECONDS", CANCEL_GRACE_SECONDS));
    node.awaitReady(Duration.ofSeconds(90));
    admin = new AdminClient(node.grpcPort(), node.httpPort(), Files.readString(data.resolve("admin.token")).trim());
    agentToken = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "node-interop", "--ttl", "1h");
    agent = NodeAgentProcess.start(node.grpcPort(), agentToken, AGENT_ID);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (agent != null) {
        agent.close();
      }
      if (admin != null) {
        admin.close();
      }
    } finally {
      try {
        // a graceful stop also stops the node's embedded PostgreSQL
        if (node != null && node.alive()) {
          node.terminate(Duration.ofSeconds(30));
        }
      } finally {
        if (node != null) {
          node.close();
        }
        if (root != null) {
          TestDatabase.deleteTree(root);
        }
      }
    }
  }

  @Test
  @Order(1)
  void theAgentRegistersAndIsListedAsConnected() {
    NodeAgentProcess.Line welcome = agent.await("welcome", Duration.ofSeconds(30));
    assertThat(welcome.field("agent")).isEqualTo(AGENT_ID);
    assertThat(welcome.field("server")).isEqualTo(NODE_ID);
    assertThat(welcome.field("instance")).isNotBlank();
    assertThat(UUID.fromString(welcome.field("principal"))).isNotNull();

    AgentInfo listed = admin.listedAgent(AGENT_ID).orElseThrow(() -> new AssertionError("ListAgents does not list " + AGENT_ID));
    assertThat(listed.getConnected()).isTrue();
    assertThat(listed.getName()).isEqualTo("node interop agent");
    assertThat(listed.getBackend()).isEqualTo("node-grpc-js");
    assertThat(listed.getWorkingDir()).isEqualTo(NodeAgentProcess.interopDir().toString());
    assertThat(listed.getMetadata().getWorkspacesList()).containsExactly("interop");
    assertThat(listed.getMetadata().getOs()).isEqualTo("linux");

    String registered = node.logText().lines().filter(l -> l.contains("agent registered agent=" + AGENT_ID)).findFirst()
      .orElseThrow(() -> new AssertionError("the node did not log the registration:\n" + node.logText()));
    assertThat(registered).contains("features=[token_usage, tool_states, injection, cancellation]");
  }

  @Test
  @Order(2)
  void echoStreamsTextAndUsageAndDoneAndTheUsageIsTotalled() {
    JsonObject agentBefore = admin.get("/api/v1/gateway/usage/agents/" + AGENT_ID).bodyAsJsonObject();
    JsonObject conversationBefore = admin.get("/api/v1/gateway/usage/conversations/" + AGENT_ID).bodyAsJsonObject();

    String request = send("echo hello from the JVM");
    List<ClientStreamEvent> events;
    try (RequestFeed feed = feed(request)) {
      events = feed.untilTerminal();
    }
    assertThat(events).anyMatch(e -> e.hasThinking() && e.getThinking().getContent().equals("echoing 4 words"));
    assertThat(text(events)).isEqualTo("hello from the JVM");
    ClientStreamEvent usage = events.stream().filter(ClientStreamEvent::hasUsage).findFirst()
      .orElseThrow(() -> new AssertionError("no usage event: " + events));
    assertThat(usage.getUsage().getInputTokens()).isEqualTo(4);
    assertThat(usage.getUsage().getOutputTokens()).isEqualTo(4);
    assertThat(usage.getUsage().getThinkingTokens()).isEqualTo(1);
    ClientStreamEvent done = events.get(events.size() - 1);
    assertThat(done.hasDone()).as("terminal event %s", done).isTrue();
    assertThat(done.getDone().getFullResponse()).as("assembled from the text chunks").isEqualTo("hello from the JVM");
    assertThat(done.getConversationKey()).isEqualTo(AGENT_ID);

    NodeAgentProcess.Line seen = agent.await("request", l -> l.field("request").equals(request), Duration.ofSeconds(5));
    assertThat(seen.field("content")).isEqualTo("echo hello from the JVM");
    assertThat(seen.field("thread")).isEqualTo(AGENT_ID);

    JsonObject agentAfter = admin.get("/api/v1/gateway/usage/agents/" + AGENT_ID).bodyAsJsonObject();
    assertThat(agentAfter.getLong("reports")).isEqualTo(agentBefore.getLong("reports") + 1);
    assertThat(agentAfter.getLong("requests")).isEqualTo(agentBefore.getLong("requests") + 1);
    assertThat(agentAfter.getLong("inputTokens")).isEqualTo(agentBefore.getLong("inputTokens") + 4);
    assertThat(agentAfter.getLong("outputTokens")).isEqualTo(agentBefore.getLong("outputTokens") + 4);
    assertThat(agentAfter.getLong("thinkingTokens")).isEqualTo(agentBefore.getLong("thinkingTokens") + 1);
    JsonObject conversationAfter = admin.get("/api/v1/gateway/usage/conversations/" + AGENT_ID).bodyAsJsonObject();
    assertThat(conversationAfter.getLong("inputTokens")).isEqualTo(conversationBefore.getLong("inputTokens") + 4);

    JsonObject status = admin.get("/api/v1/gateway/requests/" + request).bodyAsJsonObject();
    assertThat(status.getString("state")).isEqualTo("done");
    assertThat(status.getString("node")).isEqualTo(NODE_ID);
  }

  @Test
  @Order(3)
  void anApprovedToolRunsAndADeniedOneIsSkipped() {
    for (boolean approve : List.of(true, false)) {
      String request = send("approve-me");
      try (RequestFeed feed = feed(request)) {
        List<ClientStreamEvent> asking = feed.until(ClientStreamEvent::hasToolApproval);
        var approval = asking.get(asking.size() - 1).getToolApproval();
        String toolId = approval.getToolId();
        assertThat(approval.getAgentId()).isEqualTo(AGENT_ID);
        assertThat(approval.getRequestId()).isEqualTo(request);
        assertThat(approval.getToolName()).isEqualTo("shell");
        assertThat(new JsonObject(approval.getInputJson()).getString("command")).isEqualTo("ls -la");
        assertThat(asking).anyMatch(e -> e.hasToolUse() && e.getToolUse().getId().equals(toolId) && e.getToolUse().getName().equals("shell"));
        assertThat(asking).anyMatch(e -> e.hasToolState() && e.getToolState().getState() == ToolState.TOOL_STATE_AWAITING_APPROVAL);

        ApproveToolResponse decided = admin.approveTool(AGENT_ID, toolId, approve);
        assertThat(decided.getSuccess()).as("ApproveTool: %s", decided.getError()).isTrue();
        NodeAgentProcess.Line reached = agent.await("approval", l -> l.field("tool").equals(toolId), Duration.ofSeconds(10));
        assertThat(reached.field("approved")).isEqualTo(Boolean.toString(approve));
        assertThat(reached.field("known")).isEqualTo("true");

        List<ClientStreamEvent> rest = feed.untilTerminal();
        assertThat(rest.get(rest.size() - 1).hasDone()).as("terminal %s", rest.get(rest.size() - 1)).isTrue();
        ClientStreamEvent result = rest.stream().filter(ClientStreamEvent::hasToolResult).findFirst()
          .orElseThrow(() -> new AssertionError("no tool result: " + rest));
        assertThat(result.getToolResult().getId()).isEqualTo(toolId);
        assertThat(result.getToolResult().getIsError()).isEqualTo(!approve);
        List<ToolState> states = rest.stream().filter(ClientStreamEvent::hasToolState).map(e -> e.getToolState().getState()).toList();
        assertThat(states).isEqualTo(approve
          ? List.of(ToolState.TOOL_STATE_RUNNING, ToolState.TOOL_STATE_COMPLETED)
          : List.of(ToolState.TOOL_STATE_DENIED));
        assertThat(text(rest)).isEqualTo(approve ? "tool shell approved and ran" : "tool shell denied; skipped");

        JsonObject status = admin.get("/api/v1/gateway/requests/" + request).bodyAsJsonObject();
        assertThat(status.getString("state")).isEqualTo("done");
        JsonObject tool = status.getJsonArray("tools").getJsonObject(0);
        assertThat(tool.getString("toolId")).isEqualTo(toolId);
        assertThat(tool.getString("name")).isEqualTo("shell");
        assertThat(tool.getString("state")).isEqualTo(approve ? "TOOL_STATE_COMPLETED" : "TOOL_STATE_DENIED");
      }
    }
  }

  @Test
  @Order(4)
  void aCancelReachesTheAgentAndItsCancelledEndsTheRequest() {
    String request = send("long");
    try (RequestFeed feed = feed(request)) {
      // the agent is streaming: two ticks have reached the client
      feed.until(e -> e.hasText() && e.getText().getContent().startsWith("tick 1"));

      long asked = System.nanoTime();
      HttpResponse<Buffer> cancel = admin.post("/api/v1/gateway/requests/" + request + "/cancel", new JsonObject().put("reason", "interop_cancel"));
      assertThat(cancel.statusCode()).as(cancel.bodyAsString()).isEqualTo(200);
      assertThat(cancel.bodyAsJsonObject().getString("state")).isEqualTo("cancelling");
      assertThat(cancel.bodyAsJsonObject().getBoolean("agentAsked")).isTrue();

      NodeAgentProcess.Line reached = agent.await("cancel", l -> l.field("request").equals(request), Duration.ofSeconds(10));
      assertThat(reached.field("reason")).isEqualTo("interop_cancel");
      assertThat(reached.field("in_flight")).isEqualTo("true");

      List<ClientStreamEvent> rest = feed.untilTerminal();
      ClientStreamEvent terminal = rest.get(rest.size() - 1);
      assertThat(terminal.hasError()).as("terminal %s", terminal).isTrue();
      assertThat(terminal.getError().getMessage()).isEqualTo("cancelled: interop_cancel");
      assertThat(terminal.getError().getRecoverable()).isFalse();
      // the agent's own Cancelled ended it, well before the gateway would have cut it off
      assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(Long.parseLong(CANCEL_GRACE_SECONDS)));
      agent.await("answered", l -> l.field("request").equals(request) && l.field("terminal").equals("cancelled"), Duration.ofSeconds(5));

      JsonObject status = admin.get("/api/v1/gateway/requests/" + request).bodyAsJsonObject();
      assertThat(status.getString("state")).isEqualTo("cancelled");
      assertThat(status.getString("cancelReason")).isEqualTo("interop_cancel");
    }
  }

  @Test
  @Order(5)
  void injectedContextIsAcknowledgedAndUsedInTheNextAnswer() {
    HttpResponse<Buffer> sent = admin.post("/api/v1/gateway/agents/" + AGENT_ID + "/inject",
      new JsonObject().put("content", "the build is red").put("priority", "immediate").put("source", "interop-test"));
    assertThat(sent.statusCode()).as(sent.bodyAsString()).isEqualTo(202);
    String injectionId = sent.bodyAsJsonObject().getString("injectionId");

    NodeAgentProcess.Line reached = agent.await("injection", l -> l.field("id").equals(injectionId), Duration.ofSeconds(10));
    assertThat(reached.field("content")).isEqualTo("the build is red");
    assertThat(reached.field("priority")).isEqualTo("immediate");
    assertThat(reached.field("source")).isEqualTo("interop-test");

    JsonObject recorded = admin.awaitInjectionState(injectionId, "accepted");
    assertThat(recorded.getString("agentId")).isEqualTo(AGENT_ID);
    assertThat(recorded.getString("priority")).isEqualTo("INJECTION_PRIORITY_IMMEDIATE");
    assertThat(recorded.getString("source")).isEqualTo("interop-test");
    assertThat(recorded.getString("ackedAt")).isNotBlank();

    String request = send("echo status please");
    try (RequestFeed feed = feed(request)) {
      List<ClientStreamEvent> events = feed.untilTerminal();
      assertThat(events.get(events.size() - 1).hasDone()).isTrue();
      assertThat(text(events)).isEqualTo("status please [context immediate from interop-test: the build is red]");
    }
  }

  @Test
  @Order(6)
  void anUnknownCommandEndsWithTheAgentsError() {
    String request = send("dance");
    try (RequestFeed feed = feed(request)) {
      List<ClientStreamEvent> events = feed.untilTerminal();
      ClientStreamEvent terminal = events.get(events.size() - 1);
      assertThat(terminal.hasError()).isTrue();
      assertThat(terminal.getError().getMessage()).isEqualTo("unknown command 'dance'");
    }
    assertThat(admin.get("/api/v1/gateway/requests/" + request).bodyAsJsonObject().getString("state")).isEqualTo("error");
  }

  @Test
  @Order(7)
  void sigtermDisconnectsTheAgentAndANodeStopSendsShutdown() {
    int code = agent.terminate(Duration.ofSeconds(15));
    assertThat(code).as("agent exit code after SIGTERM; its output:\n%s", agent.output()).isZero();
    assertThat(agent.output()).contains("coven-agent: signal signal=SIGTERM", "coven-agent: exit code=0");
    admin.awaitConnected(AGENT_ID, false);
    assertThat(node.logText()).contains("agent disconnected agent=" + AGENT_ID);

    // a second agent of the same principal; the node's graceful stop tells it to go with Shutdown
    String second = AGENT_ID + "-2";
    try (NodeAgentProcess other = NodeAgentProcess.start(node.grpcPort(), agentToken, second)) {
      other.await("welcome", Duration.ofSeconds(30));
      admin.awaitConnected(second, true);
      assertThat(node.terminate(Duration.ofSeconds(30))).as("node exit code after SIGTERM").isZero();
      NodeAgentProcess.Line shutdown = other.await("shutdown", Duration.ofSeconds(10));
      assertThat(shutdown.field("reason")).isNotBlank();
      NodeAgentProcess.Line exit = other.await("exit", Duration.ofSeconds(10));
      assertThat(exit.field("code")).isEqualTo("0");
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private static String send(String content) {
    return admin.send(AGENT_ID, content);
  }

  private static RequestFeed feed(String requestId) {
    return admin.feed(AGENT_ID, requestId);
  }

  private static String text(List<ClientStreamEvent> events) {
    return events.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).collect(Collectors.joining());
  }
}
