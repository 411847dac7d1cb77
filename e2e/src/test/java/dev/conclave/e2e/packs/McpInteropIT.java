package dev.conclave.e2e.packs;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.PackToolResult;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interop of the MCP endpoint with the official TypeScript MCP SDK: a Java agent registers with
 * capability {@code notes} and hands its Welcome's MCP token and endpoint to
 * {@code e2e/interop/mcp-client.mjs} (SDK Client over Streamable HTTP), which must be refused
 * without the token, see exactly the note tools, run {@code note_set}, and get JSON-RPC error
 * -32602 for {@code ask_user}, which needs a capability the agent lacks.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class McpInteropIT {

  private static final String AGENT_ID = "mcp-notes-agent";

  private static Path root;
  private static NodeProcess node;
  private static Vertx vertx;
  private static GrpcClient grpc;
  private static ToolAgent agent;

  @BeforeAll
  static void start() throws Exception {
    say("Node.js " + NodeScripts.checkPrerequisites("@modelcontextprotocol/sdk"));
    root = Files.createTempDirectory("conclave-mcp-interop");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "mcp-node"));
    say("node ready in " + node.awaitReady(Duration.ofSeconds(90)).toMillis() + " ms");
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "mcp-interop", "--ttl", "1h");
    vertx = Vertx.vertx();
    grpc = GrpcClient.client(vertx);
    agent = ToolAgent.register(vertx, grpc, node.grpcPort(), token, AGENT_ID, List.of("notes"));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (agent != null) {
        agent.close();
      }
      if (grpc != null) {
        grpc.close();
      }
      if (vertx != null) {
        vertx.close().await(10, TimeUnit.SECONDS);
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
  void theTypeScriptSdkListsAndCallsOnlyTheAgentsTools() {
    String endpoint = agent.welcome().getMcpEndpoint();
    say("agent welcomed; MCP endpoint " + endpoint + ", tools " + agent.toolNames());
    assertThat(endpoint).endsWith(":" + node.httpPort() + "/mcp");
    assertThat(agent.welcome().getMcpToken()).isNotBlank();

    NodeScripts.Run run = NodeScripts.run(List.of("node", "mcp-client.mjs", "--url", endpoint,
        "--allowed", "note_set", "--allowed-args", new JsonObject().put("key", "k").put("value", "v").encode(),
        "--forbidden", "ask_user", "--forbidden-args", new JsonObject().put("question", "?")
          .put("options", new JsonArray().add(new JsonObject().put("label", "ok"))).encode()),
      Map.of("MCP_TOKEN", agent.welcome().getMcpToken()), Duration.ofSeconds(60));
    run.stdout().forEach(line -> say("mcp-client: " + line));
    String output = "stdout:\n" + String.join("\n", run.stdout()) + "\nstderr:\n" + run.stderr();
    Map<String, JsonObject> steps = new LinkedHashMap<>();
    run.stdout().forEach(line -> {
      JsonObject step = new JsonObject(line);
      steps.put(step.getString("step"), step);
    });

    assertThat(steps.keySet()).as(output).containsExactly("unauthorized", "initialize", "list", "call", "forbidden", "close", "done");
    assertThat(steps.get("unauthorized").getInteger("status")).as("without the token").isEqualTo(401);
    assertThat(steps.get("initialize").getString("protocolVersion")).isIn("2025-06-18", "2025-11-25");
    assertThat(steps.get("initialize").getJsonObject("server").getString("name")).isEqualTo("conclave");
    assertThat(steps.get("list").getJsonArray("tools")).as("tools for capability notes")
      .containsExactly("note_delete", "note_get", "note_list", "note_set");

    JsonObject call = steps.get("call");
    assertThat(call.getBoolean("isError")).as(output).isFalse();
    JsonObject content = call.getJsonArray("content").getJsonObject(0);
    assertThat(content.getString("type")).isEqualTo("text");
    assertThat(new JsonObject(content.getString("text"))).isEqualTo(new JsonObject().put("key", "k").put("status", "saved"));

    JsonObject forbidden = steps.get("forbidden");
    assertThat(forbidden.getString("error")).as(output).isEqualTo("McpError");
    assertThat(forbidden.getInteger("code")).isEqualTo(-32602);
    assertThat(forbidden.getString("message")).contains("ask_user");

    assertThat(steps.values()).as(output).allSatisfy(step -> assertThat(step.getBoolean("ok")).as("step %s", step).isTrue());
    assertThat(run.exitCode()).as(output).isZero();
    say("mcp-client ran in " + run.took().toMillis() + " ms");

    // the note was stored for this agent: the agent reads it back over its own stream
    PackToolResult read = agent.callAndWait("note_get", new JsonObject().put("key", "k").encode(), Duration.ofSeconds(15));
    assertThat(read.getResultCase()).as("note_get %s", read).isEqualTo(PackToolResult.ResultCase.OUTPUT_JSON);
    assertThat(new JsonObject(read.getOutputJson())).isEqualTo(new JsonObject().put("key", "k").put("value", "v"));
  }

  private static void say(String line) {
    System.out.println("mcp-interop: " + line);
  }
}
