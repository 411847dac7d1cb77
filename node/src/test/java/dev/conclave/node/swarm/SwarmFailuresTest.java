package dev.conclave.node.swarm;

import dev.conclave.agentruntime.config.AgentSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task that does not succeed is FAILed with the spec's type and whether another agent may retry
 * it: a backend error is {@code task_error}, recoverable when it is transient by the agent SDK's
 * rule (retried once already); a tool the policy denies is {@code resource_error}, not recoverable.
 */
class SwarmFailuresTest {

  private static SwarmFixture f;
  private static Path claude;

  @BeforeAll
  static void start() {
    f = new SwarmFixture();
    claude = SwarmFixture.standInClaude();
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void failuresCarryTheirTypeAndWhetherTheyAreRecoverable() throws Exception {
    SwarmFixture.Program agent = f.start("failing-agent", Map.of(AgentSettings.BACKEND, "claude-cli", AgentSettings.COMMAND, claude.toString(),
      AgentSettings.SKILLS, "fails"), UnaryOperator.identity());
    JsonObject overloaded = failed("f-overloaded", "step: fail API Error: 529 {\"type\":\"overloaded_error\"}");
    assertThat(overloaded.getString("status")).isEqualTo("pending_retry");
    assertThat(overloaded.getString("failureType")).isEqualTo("task_error");
    assertThat(overloaded.getString("lastError")).contains("temporarily unavailable");

    JsonObject broken = failed("f-broken", "step: fail Invalid API key");
    assertThat(broken.getString("status")).as("not recoverable: no retry").isEqualTo("failed");
    assertThat(broken.getString("failureType")).isEqualTo("task_error");
    assertThat(broken.getString("lastError")).contains("Invalid API key");

    // the default policy denies paths outside the working directory
    JsonObject denied = failed("f-denied", "step: write ../outside.txt escape");
    assertThat(denied.getString("status")).isEqualTo("failed");
    assertThat(denied.getString("failureType")).isEqualTo("resource_error");
    assertThat(denied.getString("lastError")).startsWith("a tool was refused: ");
    assertThat(f.conversation("swarm:f-denied").encode()).contains("DENIED");
    assertThat(agent.stopAndWait("test over")).isZero();
  }

  /** Creates the task and waits until its first attempt has failed; cancels what would be retried. */
  private static JsonObject failed(String id, String steps) {
    f.createTask(new JsonObject().put("id", id).put("title", id).put("description", steps).put("requiredSkills", new JsonArray().add("fails")));
    JsonObject t = f.awaitTask(id, x -> x.getInteger("retryCount", 0) >= 1, Duration.ofSeconds(60));
    if (!List.of("failed", "cancelled").contains(t.getString("status"))) {
      f.call("POST", "/api/v1/tasks/" + id + "/cancel", new JsonObject().put("reason", "test: seen"));
    }
    return t;
  }
}
