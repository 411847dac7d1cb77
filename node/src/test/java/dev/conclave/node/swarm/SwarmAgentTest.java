package dev.conclave.node.swarm;

import dev.conclave.agentruntime.cli.AgentSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
}
