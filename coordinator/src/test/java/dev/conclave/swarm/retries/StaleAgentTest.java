package dev.conclave.swarm.retries;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Agents that stop heartbeating: offline, their tasks failed as agent_crash into retry, their leases freed. */
class StaleAgentTest {

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

  @Test
  void aSilentAgentGoesOfflineAndItsWorkIsRetried() {
    Scenario s = new Scenario(api);
    String silent = s.agent();
    String task = s.claimedBy(silent, s.task("orphaned"));
    String file = "src/" + s.skill + "/orphan.ts";
    assertThat(api.acquire(silent, task, file, 3_600_000).json().getBoolean("success")).isTrue();

    swarm.clock().advance(Duration.ofSeconds(119));
    String rescuer = s.agent();
    assertThat(api.get("/api/v1/agents/" + silent).json().getString("status")).isEqualTo("busy");

    swarm.clock().advance(Duration.ofSeconds(2));
    Waits.until(() -> "offline".equals(api.get("/api/v1/agents/" + silent).json().getString("status")),
      Duration.ofSeconds(10), "the silent agent offline");

    JsonObject stored = api.task(task);
    assertThat(stored.getString("status")).isEqualTo("pending_retry");
    assertThat(stored.getString("failureType")).isEqualTo("agent_crash");
    assertThat(stored.getInteger("retryCount")).isEqualTo(1);
    assertThat(stored.getJsonArray("previousAgents")).containsExactly(silent);

    String rescuerTask = s.claimedBy(rescuer, s.task("other-work"));
    assertThat(api.acquire(rescuer, rescuerTask, file, 1000).json().getBoolean("success")).as("the lease was released").isTrue();

    Reply progress = api.progress(silent, task, 50);
    assertThat(progress.status()).isEqualTo(200);
    assertThat(progress.json().getBoolean("continue")).isFalse();
    assertThat(progress.json().getString("reason")).isEqualTo("task_reassigned");

    Reply heartbeat = api.heartbeat(silent, "busy");
    assertThat(heartbeat.status()).isEqualTo(404);
    assertThat(heartbeat.code()).isEqualTo("agent_not_registered");

    assertThat(api.register(silent, java.util.List.of(s.skill)).status()).isEqualTo(200);
    assertThat(api.heartbeat(silent, "idle").status()).isEqualTo(200);
  }

  @Test
  void progressSaysStopOnceAnotherAgentHasTheTask() {
    Scenario s = new Scenario(api);
    String slow = s.agent();
    String task = s.claimedBy(slow, s.task("slow"));
    assertThat(api.progress(slow, task, 10).json().getBoolean("continue")).isTrue();
    swarm.clock().advance(Duration.ofMinutes(3));
    String fast = s.agent();
    Waits.until(() -> "pending_retry".equals(api.task(task).getString("status")), Duration.ofSeconds(10), "crash handled");
    swarm.advanceKeepingAlive(Duration.ofMinutes(1), fast);
    Waits.until(() -> "ready".equals(api.task(task).getString("status")), Duration.ofSeconds(10), "retry due");
    assertThat(api.claim(fast).json().getJsonObject("task").getString("id")).isEqualTo(task);

    Reply reply = api.progress(slow, task, 60);

    assertThat(reply.json().getBoolean("continue")).isFalse();
    assertThat(reply.json().getBoolean("success")).isFalse();
    assertThat(reply.json().getString("reason")).isEqualTo("task_reassigned");
    assertThat(api.progress(fast, task, 5).json().getBoolean("continue")).isTrue();
  }

  @Test
  void reRegisteringAStaleAgentFailsWhatItHeld() {
    Scenario s = new Scenario(api);
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("held"));
    swarm.clock().advance(Duration.ofSeconds(121));

    assertThat(api.register(agent, java.util.List.of(s.skill)).status()).isEqualTo(200);

    JsonObject stored = api.task(task);
    assertThat(stored.getString("status")).isEqualTo("pending_retry");
    assertThat(stored.getString("failureType")).isEqualTo("agent_crash");
    assertThat(api.get("/api/v1/agents/" + agent).json().getString("status")).isEqualTo("idle");
  }
}
