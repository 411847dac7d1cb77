package dev.conclave.node.swarm;

import dev.conclave.agentruntime.config.AgentSettings;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.GrpcCalls;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent program as a swarm agent ({@code ./conclave agent --swarm}) against a real node: it
 * registers with the coordinator under its gateway id, claims a task, works it as the conversation
 * {@code swarm:<taskId>} in the gateway and completes it.
 */
class SwarmAgentTest {

  private static SwarmFixture f;

  @BeforeAll
  static void start() {
    f = new SwarmFixture();
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void aClaimedTaskIsWorkedAsAConversationAndCompleted() throws Exception {
    f.createTask(new JsonObject().put("id", "dep-1").put("title", "Write the parser").put("requiredSkills", new JsonArray().add("java")));
    SwarmFixture.Program agent = f.start("echo-swarm-1", Map.of(AgentSettings.BACKEND, "echo", AgentSettings.SKILLS, "java,docs",
      AgentSettings.NAME, "Echo One"), UnaryOperator.identity());
    JsonObject first = f.awaitTask("dep-1", t -> t.getString("status").equals("completed"), Duration.ofSeconds(60));
    f.createTask(new JsonObject().put("id", "task-1").put("title", "Document the parser").put("type", "documentation")
      .put("description", "Explain how the parser reads numbers.").put("requiredSkills", new JsonArray().add("docs"))
      .put("dependencies", new JsonArray().add("dep-1")));

    JsonObject done = f.awaitTask("task-1", t -> t.getString("status").equals("completed"), Duration.ofSeconds(60));
    assertThat(done.getString("assignedAgent")).isEqualTo("echo-swarm-1");
    assertThat(done.getString("conversationKey")).isEqualTo("swarm:task-1");
    assertThat(first.getString("conversationKey")).isEqualTo("swarm:dep-1");

    // the conversation holds the hand-over (the prompt, with what the dependency produced) and the backend's answer
    JsonArray events = f.conversation("swarm:task-1");
    List<JsonObject> list = events.stream().map(e -> ((JsonObject) e).getJsonObject("event")).toList();
    String inbound = list.get(0).encode();
    assertThat(inbound).contains("Document the parser").contains("Explain how the parser reads numbers.")
      .contains("dep-1: Write the parser").contains("Completed by echo-swarm-1");
    assertThat(list.stream().map(JsonObject::encode)).anySatisfy(e -> assertThat(e).contains("\"done\""));
    // COMPLETE carried the backend's answer as the summary
    assertThat(done.getJsonObject("result").getString("summary")).startsWith("echo: You are working on a task from the swarm's backlog (task task-1)");
    assertThat(done.getJsonObject("result").getJsonArray("filesCreated")).isEmpty();

    // one identity: the swarm agent is the gateway agent, named alike
    JsonObject swarmAgent = f.swarmAgent("echo-swarm-1");
    assertThat(swarmAgent.getString("name")).isEqualTo("Echo One");
    assertThat(swarmAgent.getString("type")).isEqualTo("custom");
    assertThat(swarmAgent.getJsonObject("capabilities").getJsonArray("skills")).containsExactlyInAnyOrder("java", "docs");

    assertThat(agent.stopAndWait("test over")).isZero();
  }

  /**
   * {@code --quality-command}: its exit code is buildSuccess and its test counts are read from its
   * output, so the coordinator's quality gate compares them with the branch's baseline.
   */
  @Test
  void theQualityCommandsResultGoesToTheQualityGate() throws Exception {
    SwarmFixture.Program agent = f.start("quality-agent", Map.of(AgentSettings.BACKEND, "echo", AgentSettings.SKILLS, "quality",
      AgentSettings.QUALITY_COMMAND, "cat quality.out; exit $(cat quality.code)"), UnaryOperator.identity());
    java.nio.file.Files.writeString(agent.workdir().resolve("quality.out"), "[INFO] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0\n");
    java.nio.file.Files.writeString(agent.workdir().resolve("quality.code"), "0");
    f.createTask(new JsonObject().put("id", "q-1").put("title", "first").put("branch", "q-branch").put("requiredSkills", new JsonArray().add("quality")));
    JsonObject first = f.awaitTask("q-1", t -> t.getString("status").equals("completed"), Duration.ofSeconds(60));
    assertThat(first.getJsonObject("quality").getBoolean("qualityGatePassed")).isTrue();

    // worse: a test fewer passes and the build fails
    java.nio.file.Files.writeString(agent.workdir().resolve("quality.out"), "[ERROR] Tests run: 5, Failures: 2, Errors: 0, Skipped: 0\n");
    java.nio.file.Files.writeString(agent.workdir().resolve("quality.code"), "1");
    f.createTask(new JsonObject().put("id", "q-2").put("title", "second").put("branch", "q-branch").put("requiredSkills", new JsonArray().add("quality")));
    JsonObject second = f.awaitTask("q-2", t -> !List.of("ready", "claimed", "in_progress").contains(t.getString("status")), Duration.ofSeconds(60));
    assertThat(second.getString("status")).isEqualTo("needs_review");
    JsonObject quality = second.getJsonObject("quality");
    assertThat(quality.getString("nextAction")).as("the program does not fix regressions itself").isEqualTo("manual_review");
    assertThat(quality.getJsonArray("regressions").stream().map(r -> ((JsonObject) r).getString("metric") + " "
      + ((JsonObject) r).getValue("baseline") + "->" + ((JsonObject) r).getValue("current")).toList())
      .containsExactlyInAnyOrder("testsPassed 4->3", "buildSuccess true->false");
    assertThat(agent.stopAndWait("test over")).isZero();
  }

  /**
   * The hand-over as any agent sees it: the message arrives on its stream in the conversation
   * swarm:<taskId>, from swarm, with the task as its content; a repeated call writes nothing more.
   */
  @Test
  void theHandOverArrivesOnceOnTheAgentsStream() throws Exception {
    Vertx vertx = Vertx.vertx();
    GrpcCalls grpc = new GrpcCalls(vertx, f.node.grpcPort());
    String token = f.agentToken("raw-swarm");
    try (RawAgent agent = RawAgent.open(grpc.client(), grpc.address(), token)) {
      agent.register(RawAgent.registration("raw-swarm"));
      assertThat(f.send("POST", "/api/v1/agents/register", new JsonObject().put("protocolVersion", "1.0").put("agent", new JsonObject()
        .put("id", "raw-swarm").put("name", "raw").put("type", "custom").put("capabilities", new JsonObject()
          .put("skills", new JsonArray().add("raw")))), token).statusCode()).isEqualTo(200);
      f.createTask(new JsonObject().put("id", "raw-1").put("title", "Raw hand-over").put("description", "Say hello.")
        .put("requiredSkills", new JsonArray().add("raw")));
      JsonObject claim = new JsonObject(f.send("POST", "/api/v1/tasks/claim", new JsonObject().put("protocolVersion", "1.0")
        .put("agentId", "raw-swarm"), token).body());
      assertThat(claim.getJsonObject("task").getString("id")).isEqualTo("raw-1");
      JsonObject body = new JsonObject().put("protocolVersion", "1.0").put("agentId", "raw-swarm");
      JsonObject first = new JsonObject(f.send("POST", "/api/v1/tasks/raw-1/conversation", body, token).body());
      JsonObject again = new JsonObject(f.send("POST", "/api/v1/tasks/raw-1/conversation", body, token).body());
      assertThat(first.getString("conversationKey")).isEqualTo("swarm:raw-1");
      assertThat(first.getBoolean("duplicate")).isFalse();
      assertThat(first.getString("requestId")).isNotBlank();
      assertThat(again.getBoolean("duplicate")).isTrue();
      assertThat(again.containsKey("requestId")).isFalse();

      var message = agent.next().getSendMessage();
      assertThat(message.getRequestId()).isEqualTo(first.getString("requestId"));
      assertThat(message.getThreadId()).isEqualTo("swarm:raw-1");
      assertThat(message.getSender()).isEqualTo("swarm");
      assertThat(message.getContent()).contains("# Raw hand-over").contains("Say hello.");
      assertThat(f.history("raw-1").stream().map(JsonObject.class::cast).filter(e -> e.getString("event").equals("conversation")))
        .as("one conversation event for one message").hasSize(1);
    } finally {
      vertx.close();
    }
  }

  /**
   * One identity, checked on both sides: a principal that registers a swarm agent under the id of a
   * gateway agent it may not act on cannot have tasks handed to that agent, and a swarm agent that is
   * no gateway agent gets no conversation.
   */
  @Test
  void aTaskIsHandedOnlyToAGatewayAgentTheCallerMayActOn() throws Exception {
    Vertx vertx = Vertx.vertx();
    GrpcCalls grpc = new GrpcCalls(vertx, f.node.grpcPort());
    try (RawAgent victim = RawAgent.open(grpc.client(), grpc.address(), f.agentToken("victim"))) {
      victim.register(RawAgent.registration("victim-gw"));
      String mallory = f.memberToken("mallory");
      for (String id : new String[] {"victim-gw", "nobody-here"}) {
        assertThat(f.send("POST", "/api/v1/agents/register", new JsonObject().put("protocolVersion", "1.0").put("agent", new JsonObject()
          .put("id", id).put("name", id).put("type", "custom").put("capabilities", new JsonObject()
            .put("skills", new JsonArray().add("steal-" + id)))), mallory).statusCode()).isEqualTo(200);
        f.createTask(new JsonObject().put("id", "loot-" + id).put("title", "loot").put("requiredSkills", new JsonArray().add("steal-" + id)));
        JsonObject claim = new JsonObject(f.send("POST", "/api/v1/tasks/claim", new JsonObject().put("protocolVersion", "1.0")
          .put("agentId", id), mallory).body());
        assertThat(claim.getJsonObject("task").getString("id")).isEqualTo("loot-" + id);
      }
      HttpResponse<String> refused = f.send("POST", "/api/v1/tasks/loot-victim-gw/conversation",
        new JsonObject().put("protocolVersion", "1.0").put("agentId", "victim-gw"), mallory);
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(new JsonObject(refused.body()).getString("code")).isEqualTo("agent_access_denied");
      HttpResponse<String> unknown = f.send("POST", "/api/v1/tasks/loot-nobody-here/conversation",
        new JsonObject().put("protocolVersion", "1.0").put("agentId", "nobody-here"), mallory);
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(new JsonObject(unknown.body()).getString("code")).isEqualTo("agent_not_found");
      // nothing reached the victim, and no conversation was opened for either task
      assertThat(f.conversation("swarm:loot-victim-gw")).isEmpty();
      assertThat(f.conversation("swarm:loot-nobody-here")).isEmpty();
      assertThat(f.task("loot-victim-gw").getString("conversationKey")).isNull();
      // another principal's swarm agent: refused by the coordinator before the gateway is asked
      HttpResponse<String> notOwned = f.send("POST", "/api/v1/tasks/loot-victim-gw/conversation",
        new JsonObject().put("protocolVersion", "1.0").put("agentId", "victim-gw"), f.memberToken("eve"));
      assertThat(new JsonObject(notOwned.body()).getString("code")).isEqualTo("agent_not_owned");
    } finally {
      vertx.close();
    }
  }
}
