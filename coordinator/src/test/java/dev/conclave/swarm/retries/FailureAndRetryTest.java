package dev.conclave.swarm.retries;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** FAIL: retry counts, previousAgents, capped exponential backoff, the retry scheduler, giving up. */
class FailureAndRetryTest {

  private static SwarmNode swarm;
  private static SwarmApi api;
  private Scenario s;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    api = swarm.api();
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  @BeforeEach
  void scenario() {
    s = new Scenario(api);
  }

  private void awaitStatus(String taskId, String status) {
    Waits.until(() -> status.equals(api.task(taskId).getString("status")), Duration.ofSeconds(10), taskId + " " + status);
  }

  @Test
  void aRecoverableFailureIsRetriedAfterABackoffThatDoublesUpToFiveMinutes() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("flaky").put("maxRetries", 10));
    List<Long> backoffs = new ArrayList<>();

    for (int attempt = 1; attempt <= 5; attempt++) {
      Reply fail = api.fail(agent, task, "task_error", true);
      assertThat(fail.status()).as(fail.toString()).isEqualTo(200);
      assertThat(fail.json().getBoolean("success")).isTrue();
      assertThat(fail.json().getBoolean("willRetry")).isTrue();
      long backoff = fail.json().getLong("retryAfter");
      backoffs.add(backoff);
      JsonObject stored = api.task(task);
      assertThat(stored.getString("status")).isEqualTo("pending_retry");
      assertThat(stored.getInteger("retryCount")).isEqualTo(attempt);
      assertThat(Instant.parse(stored.getString("nextRetryAt"))).isEqualTo(swarm.clock().instant().plusMillis(backoff));

      // not before the backoff has passed
      swarm.advanceKeepingAlive(Duration.ofMillis(backoff - 1), agent);
      sleepJobs();
      assertThat(api.task(task).getString("status")).isEqualTo("pending_retry");
      swarm.clock().advance(Duration.ofMillis(1));
      awaitStatus(task, "ready");
      assertThat(api.claim(agent).json().getJsonObject("task").getString("id")).as("no other agent could take it").isEqualTo(task);
    }

    assertThat(backoffs).containsExactly(60_000L, 120_000L, 240_000L, 300_000L, 300_000L);
  }

  @Test
  void theFailingAgentIsRememberedAndTheFailureRecorded() {
    String agent = s.agent();
    String helper = s.agent();
    String task = s.claimedBy(agent, s.task("remembered"));

    Reply fail = api.post("/api/v1/tasks/" + task + "/fail", SwarmApi.v1().put("agentId", agent).put("failure", new JsonObject()
      .put("type", "resource_error").put("message", "file locked").put("recoverable", true).put("suggestedAction", "wait")));

    assertThat(fail.json().getString("nextAgent")).isEqualTo(helper);
    JsonObject stored = api.task(task);
    assertThat(stored.getJsonArray("previousAgents")).containsExactly(agent);
    assertThat(stored.getString("lastError")).isEqualTo("file locked");
    assertThat(stored.getString("failureType")).isEqualTo("resource_error");
    assertThat(stored.containsKey("assignedAgent")).isFalse();
    assertThat(api.get("/api/v1/agents/" + agent).json().getInteger("tasksFailed")).isEqualTo(1);
  }

  @Test
  void aFailureThatCannotBeRecoveredFailsTheTask() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("fatal"));

    Reply fail = api.fail(agent, task, "dependency_error", false);

    assertThat(fail.json().getBoolean("willRetry")).isFalse();
    assertThat(fail.json().containsKey("retryAfter")).isFalse();
    assertThat(api.task(task).getString("status")).isEqualTo("failed");
    assertThat(api.task(task).getInteger("retryCount")).isEqualTo(1);
  }

  @Test
  void afterMaxRetriesTheTaskFails() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("limited").put("maxRetries", 1));
    assertThat(api.fail(agent, task, "task_error", true).json().getBoolean("willRetry")).isTrue();
    swarm.advanceKeepingAlive(Duration.ofMinutes(1), agent);
    awaitStatus(task, "ready");
    api.claim(agent);

    Reply second = api.fail(agent, task, "task_error", true);

    assertThat(second.json().getBoolean("willRetry")).isFalse();
    assertThat(api.task(task).getString("status")).isEqualTo("failed");
    assertThat(api.task(task).getInteger("retryCount")).isEqualTo(2);
    assertThat(api.task(task).getJsonArray("previousAgents")).containsExactly(agent);
  }

  @Test
  void theDefaultMaxRetriesIsTwo() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("defaulted"));
    assertThat(api.task(task).getInteger("maxRetries")).isEqualTo(2);
  }

  @Test
  void failingReleasesTheTasksLeases() {
    String agent = s.agent();
    String other = s.agent();
    String task = s.claimedBy(agent, s.task("leasing"));
    String file = "src/" + s.skill + "/main.go";
    api.acquire(agent, task, file, 600_000);
    String otherTask = s.claimedBy(other, s.task("other"));
    assertThat(api.acquire(other, otherTask, file, 1000).json().getBoolean("success")).isFalse();

    api.fail(agent, task, "task_error", true);

    assertThat(api.acquire(other, otherTask, file, 1000).json().getBoolean("success")).isTrue();
  }

  @Test
  void aRepeatedFailGetsTheSameAnswer() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("twice"));
    Reply first = api.fail(agent, task, "task_error", true);
    swarm.clock().advance(Duration.ofSeconds(10));

    Reply again = api.fail(agent, task, "task_error", true);

    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().getBoolean("willRetry")).isTrue();
    assertThat(again.json().getLong("retryAfter")).isEqualTo(first.json().getLong("retryAfter") - 10_000);
    assertThat(api.task(task).getInteger("retryCount")).isEqualTo(1);
  }

  @Test
  void failuresAreChecked() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("checked"));

    Reply badType = api.post("/api/v1/tasks/" + task + "/fail", SwarmApi.v1().put("agentId", agent).put("failure",
      new JsonObject().put("type", "cosmic_rays").put("message", "x").put("recoverable", true)));
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.json().getString("field")).isEqualTo("failure.type");

    Reply noRecoverable = api.post("/api/v1/tasks/" + task + "/fail", SwarmApi.v1().put("agentId", agent).put("failure",
      new JsonObject().put("type", "task_error").put("message", "x")));
    assertThat(noRecoverable.json().getString("field")).isEqualTo("failure.recoverable");
  }

  /** Lets the background jobs run a few times against the current clock. */
  private static void sleepJobs() {
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
