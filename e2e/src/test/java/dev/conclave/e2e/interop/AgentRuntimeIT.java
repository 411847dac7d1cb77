package dev.conclave.e2e.interop;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent program as a real process against a real node: {@code conclave-node.jar agent
 * --backend openai} talks to a local server speaking the Chat Completions streaming format. A
 * client sends a message; the model calls the built-in pack tool {@code note_set}; the default
 * policy asks, the client approves with ApproveTool; the tool runs on the node's pack host; its
 * output goes back to the model, which answers. The client sees every event, in order. SIGTERM
 * then stops the agent with exit code 0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AgentRuntimeIT {

  private static final String AGENT_ID = "runtime-openai-agent";

  private static Path root;
  private static NodeProcess node;
  private static AdminClient admin;
  private static Vertx vertx;
  private static HttpServer model;
  private static final List<JsonObject> modelRequests = new CopyOnWriteArrayList<>();
  private static Process agent;
  private static final BlockingQueue<String> agentLines = new LinkedBlockingQueue<>();
  private static final List<String> agentOutput = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("conclave-agent-runtime");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "runtime-node"));
    vertx = Vertx.vertx();
    int modelPort = FreePorts.next();
    model = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
      JsonObject request = body.toJsonObject();
      modelRequests.add(request);
      req.response().setChunked(true).putHeader("content-type", "text/event-stream");
      if (modelRequests.size() == 1) {
        // the first answer is a tool call, its arguments streamed in two fragments
        sse(req.response(), chunk(new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", 0)
          .put("id", "call_note").put("type", "function").put("function", new JsonObject().put("name", "note_set").put("arguments", "")))), null));
        sse(req.response(), chunk(new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", 0)
          .put("function", new JsonObject().put("arguments", "{\"key\":\"greeting\",")))), null));
        sse(req.response(), chunk(new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", 0)
          .put("function", new JsonObject().put("arguments", "\"value\":\"hello\"}")))), null));
        sse(req.response(), chunk(new JsonObject(), "tool_calls"));
        sse(req.response(), new JsonObject().put("choices", new JsonArray()).put("usage", new JsonObject()
          .put("prompt_tokens", 50).put("completion_tokens", 12)));
      } else {
        sse(req.response(), chunk(new JsonObject().put("content", "Saved "), null));
        sse(req.response(), chunk(new JsonObject().put("content", "the note."), null));
        sse(req.response(), chunk(new JsonObject(), "stop"));
        sse(req.response(), new JsonObject().put("choices", new JsonArray()).put("usage", new JsonObject()
          .put("prompt_tokens", 80).put("completion_tokens", 4)));
      }
      req.response().end("data: [DONE]\n\n");
    }));
    model.listen(modelPort, "127.0.0.1").await();
    node.awaitReady(Duration.ofSeconds(90));
    admin = new AdminClient(node.grpcPort(), node.httpPort(), Files.readString(data.resolve("admin.token")).trim());
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "runtime-agent", "--ttl", "1h");

    Path workdir = Files.createDirectories(root.resolve("work"));
    List<String> cmd = new ArrayList<>(TestJvm.command("256m", "-jar", NodeProcess.jar().toString(), "agent",
      "--backend", "openai", "--base-url", "http://127.0.0.1:" + modelPort + "/v1", "--model", "standin-model",
      "--agent-id", AGENT_ID, "--name", "runtime agent", "--capabilities", "chat,notes", "--workspaces", "e2e",
      "--workdir", workdir.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_ENDPOINTS", "127.0.0.1:" + node.grpcPort());
    pb.environment().put("CONCLAVE_AGENT_TOKEN", token);
    pb.environment().put("OPENAI_API_KEY", "sk-e2e");
    agent = pb.start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(agent.getInputStream()))) {
        String line;
        while ((line = in.readLine()) != null) {
          agentOutput.add(line);
          agentLines.add(line);
        }
      } catch (IOException ignored) {
        // the agent exited
      }
    }, "agent-output");
    reader.setDaemon(true);
    reader.start();
    awaitLine("conclave-agent: registered agent=" + AGENT_ID);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (agent != null && agent.isAlive()) {
        agent.destroyForcibly();
      }
      if (admin != null) {
        admin.close();
      }
      if (vertx != null) {
        vertx.close().await();
      }
    } finally {
      try {
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
  void theModelCallsABuiltInToolThatTheClientApprovesAndTheClientSeesEveryEventInOrder() throws Exception {
    AgentInfo listed = admin.listedAgent(AGENT_ID).orElseThrow();
    assertThat(listed.getConnected()).isTrue();
    assertThat(listed.getName()).isEqualTo("runtime agent");
    assertThat(listed.getBackend()).isEqualTo("openai");
    assertThat(listed.getMetadata().getWorkspacesList()).containsExactly("e2e");
    String registered = node.logText().lines().filter(l -> l.contains("agent registered agent=" + AGENT_ID)).findFirst().orElseThrow();
    String features = registered.substring(registered.indexOf("features=[") + "features=[".length(), registered.lastIndexOf(']'));
    assertThat(features.split(", ")).containsExactlyInAnyOrder("token_usage", "tool_states", "injection", "cancellation");

    String request = admin.send(AGENT_ID, "remember that greeting is hello");
    List<ClientStreamEvent> events = new ArrayList<>();
    try (RequestFeed feed = admin.feed(AGENT_ID, request)) {
      events.addAll(feed.until(ClientStreamEvent::hasToolApproval));
      var approval = events.get(events.size() - 1).getToolApproval();
      assertThat(approval.getToolName()).isEqualTo("note_set");
      assertThat(new JsonObject(approval.getInputJson()).getString("value")).isEqualTo("hello");
      assertThat(admin.approveTool(AGENT_ID, approval.getToolId(), true).getSuccess()).isTrue();
      events.addAll(feed.untilTerminal());
    }
    List<String> seen = events.stream().map(AgentRuntimeIT::describe).filter(s -> !s.isEmpty()).toList();
    assertThat(seen).containsExactly(
      "usage 50/12",
      "tool_use note_set",
      "tool_state TOOL_STATE_AWAITING_APPROVAL",
      "tool_approval note_set",
      "tool_state TOOL_STATE_RUNNING",
      "tool_result ok",
      "tool_state TOOL_STATE_COMPLETED",
      "text Saved ",
      "text the note.",
      "usage 80/4",
      "done Saved the note.");

    // the model got the tool's real output from the node's pack host
    JsonArray second = modelRequests.get(1).getJsonArray("messages");
    JsonObject toolMessage = second.getJsonObject(2);
    assertThat(toolMessage.getString("role")).isEqualTo("tool");
    assertThat(toolMessage.getString("tool_call_id")).isEqualTo("call_note");
    assertThat(toolMessage.getString("content")).doesNotStartWith("error").contains("greeting");
    assertThat(modelRequests.get(0).getJsonArray("tools").stream()
      .map(t -> ((JsonObject) t).getJsonObject("function").getString("name"))).contains("note_set", "note_get");

    // SIGTERM: the agent stops and exits 0
    agent.destroy();
    assertThat(agent.waitFor(20, TimeUnit.SECONDS)).as("agent exits after SIGTERM; output:\n%s", agentOutput).isTrue();
    assertThat(agent.exitValue()).as("exit code; output:\n%s", String.join("\n", agentOutput)).isZero();
    admin.awaitConnected(AGENT_ID, false);
  }

  private static String describe(ClientStreamEvent e) {
    if (e.hasUsage()) {
      return "usage " + e.getUsage().getInputTokens() + "/" + e.getUsage().getOutputTokens();
    }
    if (e.hasToolUse()) {
      return "tool_use " + e.getToolUse().getName();
    }
    if (e.hasToolState()) {
      return "tool_state " + e.getToolState().getState().name();
    }
    if (e.hasToolApproval()) {
      return "tool_approval " + e.getToolApproval().getToolName();
    }
    if (e.hasToolResult()) {
      return "tool_result " + (e.getToolResult().getIsError() ? "error " + e.getToolResult().getOutput() : "ok");
    }
    if (e.hasText()) {
      return "text " + e.getText().getContent();
    }
    if (e.hasDone()) {
      return "done " + e.getDone().getFullResponse();
    }
    if (e.hasError()) {
      return "error " + e.getError().getMessage();
    }
    return "";
  }

  private static void sse(io.vertx.core.http.HttpServerResponse resp, JsonObject chunk) {
    resp.write("data: " + chunk.encode() + "\n\n");
  }

  private static JsonObject chunk(JsonObject delta, String finish) {
    return new JsonObject().put("id", "chatcmpl-e2e").put("object", "chat.completion.chunk").put("model", "standin-model")
      .put("choices", new JsonArray().add(new JsonObject().put("index", 0).put("delta", delta).put("finish_reason", finish)));
  }

  private static void awaitLine(String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (System.nanoTime() < deadline) {
      String line = agentLines.poll(200, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(prefix)) {
        return;
      }
      if (line == null && !agent.isAlive()) {
        break;
      }
    }
    throw new AssertionError("the agent never printed '" + prefix + "'; output:\n" + String.join("\n", agentOutput));
  }
}
