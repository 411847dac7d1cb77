package dev.conclave.swarm.agents;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** REGISTER and HEARTBEAT over HTTP, and the operator's heartbeat commands. */
class AgentLifecycleTest {

  private static SwarmNode swarm;
  private static SwarmApi api;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    api = swarm.api();
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void registerAnswersWithTheRegistrationTimeAndAnHmacSecret() {
    Reply reply = api.register(unique("agent"), List.of("java"));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getBoolean("success")).isTrue();
    assertThat(Instant.parse(reply.json().getString("registeredAt"))).isEqualTo(swarm.clock().instant());
    assertThat(reply.json().getString("agentSecret")).hasSizeGreaterThan(30);
  }

  @Test
  void anActiveAgentCannotRegisterAgainButAStaleOneCan() {
    String id = unique("agent");
    assertThat(api.register(id, List.of("java")).status()).isEqualTo(200);

    swarm.clock().advance(Duration.ofSeconds(119));
    Reply again = api.register(id, List.of("java"));
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("agent_already_registered");
    assertThat(again.contentType()).isEqualTo("application/problem+json");
    assertThat(again.json().getBoolean("success")).isFalse();

    swarm.clock().advance(Duration.ofSeconds(2));
    Reply stale = api.register(id, List.of("java", "go"));
    assertThat(stale.status()).as(stale.toString()).isEqualTo(200);
    JsonObject agent = api.get("/api/v1/agents/" + id).json();
    assertThat(agent.getJsonObject("capabilities").getJsonArray("skills")).containsExactly("go", "java");
    assertThat(agent.getString("status")).isEqualTo("idle");
  }

  @Test
  void heartbeatUpdatesTheAgentAndTheProgressOfItsTask() {
    String skill = unique("skill");
    String id = unique("agent");
    api.register(id, List.of(skill));
    api.createTasks(new JsonArray().add(new JsonObject().put("id", unique("task")).put("title", "t").put("requiredSkills", new JsonArray().add(skill))));
    String taskId = api.claim(id).json().getJsonObject("task").getString("id");

    swarm.clock().advance(Duration.ofSeconds(10));
    Reply beat = api.post("/api/v1/agents/" + id + "/heartbeat", v1().put("agentId", id).put("status", "busy")
      .put("currentTask", new JsonObject().put("id", taskId).put("progress", 40).put("phase", "testing"))
      .put("metrics", new JsonObject().put("memoryUsedMB", 512).put("tasksCompletedSession", 3)));

    assertThat(beat.status()).as(beat.toString()).isEqualTo(200);
    assertThat(Instant.parse(beat.json().getString("timestamp"))).isEqualTo(swarm.clock().instant());
    JsonObject agent = api.get("/api/v1/agents/" + id).json();
    assertThat(agent.getString("status")).isEqualTo("busy");
    assertThat(Instant.parse(agent.getString("lastHeartbeatAt"))).isEqualTo(swarm.clock().instant());
    assertThat(agent.getJsonObject("metrics").getInteger("tasksCompletedSession")).isEqualTo(3);
    JsonObject task = api.task(taskId);
    assertThat(task.getString("status")).isEqualTo("in_progress");
    assertThat(task.getJsonObject("progress").getInteger("percentComplete")).isEqualTo(40);
    assertThat(task.getJsonObject("progress").getString("phase")).isEqualTo("testing");
  }

  @Test
  void queuedCommandsAreDeliveredExactlyOnce() {
    String id = unique("agent");
    api.register(id, List.of("java"));
    assertThat(api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "PING")).status()).isEqualTo(202);
    assertThat(api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "RELEASE_TASK")
      .put("taskId", "t-1").put("reason", "rebalancing")).status()).isEqualTo(202);
    assertThat(api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "SHUTDOWN")
      .put("reason", "maintenance")).status()).isEqualTo(202);

    JsonArray first = api.heartbeat(id, "idle").json().getJsonArray("commands");
    JsonArray second = api.heartbeat(id, "idle").json().getJsonArray("commands");

    assertThat(first).containsExactly(
      new JsonObject().put("type", "PING"),
      new JsonObject().put("type", "RELEASE_TASK").put("taskId", "t-1").put("reason", "rebalancing"),
      new JsonObject().put("type", "SHUTDOWN").put("reason", "maintenance"));
    assertThat(second).isEmpty();
  }

  @Test
  void commandsAreCheckedAndNeedAKnownAgent() {
    String id = unique("agent");
    api.register(id, List.of("java"));
    Reply noReason = api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "SHUTDOWN"));
    assertThat(noReason.status()).isEqualTo(400);
    assertThat(noReason.json().getString("field")).isEqualTo("reason");
    Reply noTask = api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "RELEASE_TASK").put("reason", "x"));
    assertThat(noTask.json().getString("field")).isEqualTo("taskId");
    Reply unknownType = api.post("/api/v1/agents/" + id + "/commands", new JsonObject().put("type", "REBOOT"));
    assertThat(unknownType.status()).isEqualTo(400);
    assertThat(unknownType.json().getString("detail")).contains("SHUTDOWN, RELEASE_TASK, PING");
    Reply nobody = api.post("/api/v1/agents/nobody-here/commands", new JsonObject().put("type", "PING"));
    assertThat(nobody.status()).isEqualTo(404);
    assertThat(nobody.code()).isEqualTo("agent_not_registered");
  }

  @Test
  void anUnknownAgentIsToldToRegister() {
    Reply reply = api.heartbeat("never-registered", "idle");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.code()).isEqualTo("agent_not_registered");
    assertThat(api.claim("never-registered").code()).isEqualTo("agent_not_registered");
  }

  @Test
  void thePathAndTheBodyMustNameTheSameAgent() {
    String id = unique("agent");
    api.register(id, List.of("java"));
    Reply reply = api.post("/api/v1/agents/" + id + "/heartbeat", v1().put("agentId", "someone-else").put("status", "idle"));

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.json().getString("field")).isEqualTo("agentId");
  }

  @Test
  void requestsAndBatchesAreCountedInTheMetrics() {
    String id = unique("agent");
    api.register(id, List.of("java"));
    api.heartbeat("nobody-" + id, "idle");

    String metrics = api.get("/metrics").text();

    assertThat(metrics).contains("conclave_swarm_requests_total{operation=\"REGISTER\",outcome=\"ok\"}");
    assertThat(metrics).contains("conclave_swarm_requests_total{operation=\"HEARTBEAT\",outcome=\"agent_not_registered\"}");
    assertThat(metrics).containsPattern("conclave_swarm_batch_size_count [1-9]");
  }
}
