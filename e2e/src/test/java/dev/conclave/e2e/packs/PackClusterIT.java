package dev.conclave.e2e.packs;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AnswerQuestionResponse;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pack tools across a three-node cluster, with real processes only: a third-party tool pack
 * ({@code e2e/interop/coven-pack.js}, Node.js and grpc-js) registers on node 1; a Java agent on
 * node 2 sees and runs its tool; the built-in ask_user asked on node 2 is answered by a client on
 * node 3; and when node 1 is killed (SIGKILL) the tool leaves the cluster within seconds and calls
 * of it end with a clear error instead of hanging. The tests share the cluster and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PackClusterIT {

  private static final String PACK_ID = "e2e-words";
  private static final String AGENT_ID = "words-agent";
  private static final Duration TOOL_LIST_BOUND = Duration.ofSeconds(10);

  private static PackCluster cluster;
  private static Vertx vertx;
  private static GrpcClient grpc;
  private static String admin;
  private static String agentToken;
  private static NodePackProcess pack;
  private static ToolAgent agent;

  @BeforeAll
  static void start() throws Exception {
    say("Node.js " + NodeScripts.checkPrerequisites("@grpc/grpc-js", "@grpc/proto-loader", "protobufjs"));
    long t0 = System.nanoTime();
    cluster = new PackCluster(3);
    cluster.startAll();
    say("3 nodes ready in " + millis(t0) + " ms");
    admin = cluster.adminToken();
    agentToken = cluster.agentToken("words-agents");
    vertx = Vertx.vertx();
    grpc = GrpcClient.client(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (agent != null) {
        agent.close();
      }
      if (pack != null) {
        pack.close();
      }
      if (grpc != null) {
        grpc.close();
      }
      if (vertx != null) {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    } finally {
      if (cluster != null) {
        for (int i = 0; i < 3; i++) {
          List<String> errors = cluster.errorLines(i);
          if (!errors.isEmpty()) {
            say("node-" + (i + 1) + " logged " + errors.size() + " ERROR lines:\n  " + String.join("\n  ", errors));
          }
        }
        cluster.close();
      }
    }
  }

  @Test
  @Order(1)
  void aNodeJsPackRegistersOnNode1() {
    try (NodePackProcess impostor = NodePackProcess.start(cluster.member(0).grpc(), agentToken, PACK_ID)) {
      int exit = impostor.awaitExit(Duration.ofSeconds(30));
      NodePackProcess.Event end = impostor.await("END", Duration.ofSeconds(5));
      say("a pack with an agent's token is refused: " + end.fields().encode() + ", exit code " + exit);
      assertThat(exit).isEqualTo(1);
      assertThat(end.fields().getString("codeName")).isEqualTo("PERMISSION_DENIED");
      assertThat(end.fields().getString("details")).contains("pack_principal_required");
    }

    long t0 = System.nanoTime();
    pack = NodePackProcess.start(cluster.member(0).grpc(), cluster.packToken("words-pack"), PACK_ID);
    NodePackProcess.Event welcome = pack.await("WELCOME", Duration.ofSeconds(30));
    say("pack welcomed on node-1 in " + millis(t0) + " ms: " + welcome.fields().encode());
    assertThat(welcome.fields().getString("packId")).isEqualTo(PACK_ID);
    assertThat(welcome.fields().getJsonArray("rejected")).isEmpty();
  }

  @Test
  @Order(2)
  void anAgentOnNode2SeesThePackToolAndRunsIt() {
    agent = ToolAgent.register(vertx, grpc, cluster.member(1).grpc(), agentToken, AGENT_ID, List.of("chat", "ui"));
    say("agent on " + agent.welcome().getServerId() + " sees tools " + agent.toolNames());
    assertThat(agent.welcome().getServerId()).isEqualTo("node-2");
    assertThat(agent.toolNames()).contains("word_count", "ask_user").doesNotContain("note_set");
    ToolDefinition wordCount = agent.welcome().getAvailableToolsList().stream().filter(t -> t.getName().equals("word_count")).findFirst()
      .orElseThrow();
    assertThat(new JsonObject(wordCount.getInputSchemaJson()).getJsonArray("required")).containsExactly("text");

    long t0 = System.nanoTime();
    PackToolResult result = agent.callAndWait("word_count", new JsonObject().put("text", "the quick  brown fox\njumps").encode(),
      Duration.ofSeconds(20));
    say("word_count from node-2 through the pack on node-1 in " + millis(t0) + " ms: " + result.getOutputJson() + result.getError());
    assertThat(result.getResultCase()).as("result %s", result).isEqualTo(PackToolResult.ResultCase.OUTPUT_JSON);
    assertThat(new JsonObject(result.getOutputJson())).isEqualTo(new JsonObject().put("words", 5));
    NodePackProcess.Event call = pack.await("CALL", f -> f.getInteger("words", -1) == 5, Duration.ofSeconds(5));
    assertThat(call.fields().getString("tool")).isEqualTo("word_count");
    pack.await("ACK", f -> f.getString("requestId").equals(call.fields().getString("requestId")), Duration.ofSeconds(5));
  }

  @Test
  @Order(3)
  void askUserFromNode2IsAnsweredByAClientOnNode3() {
    try (ConversationWatcher watcher = new ConversationWatcher(vertx, cluster.member(2).grpc(), admin, AGENT_ID)) {
      JsonObject input = new JsonObject().put("question", "Ship it?").put("timeout_seconds", 60)
        .put("options", new JsonArray().add(new JsonObject().put("label", "yes")).add(new JsonObject().put("label", "no")));
      long t0 = System.nanoTime();
      CompletableFuture<PackToolResult> asked = agent.call("ask_user", input.encode());

      UserQuestionRequest question = watcher.awaitQuestion(Duration.ofSeconds(20));
      say("client on node-3 sees question " + question.getQuestionId() + " after " + millis(t0) + " ms");
      assertThat(question.getAgentId()).isEqualTo(AGENT_ID);
      assertThat(question.getQuestion()).isEqualTo("Ship it?");
      assertThat(question.getOptionsList()).extracting(o -> o.getLabel()).containsExactly("yes", "no");
      assertThat(asked).as("the tool waits for the answer").isNotDone();

      AnswerQuestionResponse answered = watcher.answer(AGENT_ID, question.getQuestionId(), "yes");
      assertThat(answered.getSuccess()).as("AnswerQuestion: %s", answered.getError()).isTrue();

      PackToolResult result = ToolAgent.await(asked, Duration.ofSeconds(20), "the result of ask_user");
      say("ask_user answered on node-3, result on node-2 after " + millis(t0) + " ms: " + result.getOutputJson() + result.getError());
      assertThat(result.getResultCase()).as("result %s", result).isEqualTo(PackToolResult.ResultCase.OUTPUT_JSON);
      assertThat(new JsonObject(result.getOutputJson()))
        .isEqualTo(new JsonObject().put("answered", true).put("selected", new JsonArray().add("yes")));

      // answered once: a second answer, from yet another node, is refused
      try (GrpcCalls node1 = new GrpcCalls(vertx, cluster.member(0).grpc())) {
        AnswerQuestionResponse again = ConversationWatcher.answer(node1, GrpcCalls.bearer(admin), AGENT_ID, question.getQuestionId(), "no");
        say("a second answer from node-1: success=" + again.getSuccess() + " error=" + again.getError());
        assertThat(again.getSuccess()).isFalse();
      }
    }
  }

  @Test
  @Order(4)
  void killingThePacksNodeTakesItsToolAwayWithinSeconds() throws Exception {
    long killedAt = System.nanoTime();
    cluster.node(0).kill();
    say("node-1 killed (SIGKILL)");
    long sentAt = System.nanoTime();
    CompletableFuture<PackToolResult> during = agent.call("word_count", new JsonObject().put("text", "right after the kill").encode());
    CompletableFuture<Long> duringMillis = during.handle((r, err) -> millis(sentAt));

    int packExit = pack.awaitExit(Duration.ofSeconds(30));
    NodePackProcess.Event end = pack.await("END", Duration.ofSeconds(5));
    say("the pack saw its stream end after " + millis(killedAt) + " ms: " + end.fields().encode() + ", exit code " + packExit);
    assertThat(packExit).isEqualTo(1);
    assertThat(end.fields().getInteger("code")).isNotZero();

    List<String> tools = List.of();
    int probes = 0;
    while (System.nanoTime() - killedAt < TOOL_LIST_BOUND.toNanos()) {
      probes++;
      try (ToolAgent probe = ToolAgent.register(vertx, grpc, cluster.member(1).grpc(), agentToken, "words-probe-" + probes,
        List.of("chat", "ui"))) {
        tools = probe.toolNames();
      }
      if (!tools.contains("word_count")) {
        break;
      }
      Thread.sleep(500);
    }
    say("after " + millis(killedAt) + " ms and " + probes + " registrations on node-2, the Welcome lists " + tools);
    assertThat(tools).as("a new registration's tools, %s after the kill", TOOL_LIST_BOUND).doesNotContain("word_count").contains("ask_user");

    long t0 = System.nanoTime();
    PackToolResult after = agent.callAndWait("word_count", new JsonObject().put("text", "is anyone there").encode(), Duration.ofSeconds(20));
    say("word_count after the tool left: error in " + millis(t0) + " ms: " + after.getError());
    assertThat(after.getResultCase()).as("result %s", after).isEqualTo(PackToolResult.ResultCase.ERROR);
    assertThat(after.getError()).contains("word_count");

    PackToolResult racing = ToolAgent.await(during, Duration.ofSeconds(30), "the result of the call sent right after the kill");
    say("word_count sent right after the kill: ended after " + duringMillis.join() + " ms with " + racing.getResultCase() + ": "
      + racing.getError());
    assertThat(racing.getResultCase()).as("result %s", racing).isEqualTo(PackToolResult.ResultCase.ERROR);
    assertThat(racing.getError()).isNotBlank();
    // the call ends when the cluster notices the member is gone, not at the tool's timeout (10 s + 5 s hop margin)
    assertThat(racing.getError()).doesNotContain("did not finish");
    assertThat(duringMillis.join()).isLessThan(8_000L);
  }

  private static long millis(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }

  private static void say(String line) {
    System.out.println("pack-cluster: " + line);
  }
}
