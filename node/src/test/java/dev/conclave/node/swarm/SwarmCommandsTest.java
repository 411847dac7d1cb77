package dev.conclave.node.swarm;

import dev.conclave.agentruntime.config.AgentSettings;
import dev.conclave.contract.Addresses;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A swarm agent obeys the commands its heartbeat brings back: PING is answered with a heartbeat at
 * once; RELEASE_TASK gives the task in hand back (FAIL, recoverable, with the reason) and stops its
 * backend; SHUTDOWN stops the program, which releases the task in hand and its leases and exits 0.
 */
class SwarmCommandsTest {

  /** The idle heartbeat here: long enough that a heartbeat right after a PING is the PING's answer. */
  private static final Duration IDLE = Duration.ofSeconds(20);

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
  void pingReleaseTaskAndShutdownFromTheHeartbeat() throws Exception {
    List<JsonObject> heartbeats = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> events = f.node.runtime().vertx().eventBus().<JsonObject>consumer(Addresses.SWARM_EVENTS, m -> {
      if (m.body().getString("kind").equals("agent") && m.body().getString("event").equals("heartbeat")
        && m.body().getString("id").equals("cmd-agent")) {
        heartbeats.add(m.body().copy().put("receivedNanos", System.nanoTime()));
      }
    });
    events.completion().await(10, TimeUnit.SECONDS);
    SwarmFixture.Program agent = f.start("cmd-agent", Map.of(AgentSettings.BACKEND, "claude-cli", AgentSettings.COMMAND, claude.toString(),
      AgentSettings.MODE, "auto", AgentSettings.SKILLS, "ops"), c -> c.withHeartbeats(IDLE, Duration.ofSeconds(2)));

    // PING: delivered with a heartbeat, answered by the next one at once (not an idle interval later)
    SwarmFixture.await("a first heartbeat", () -> !heartbeats.isEmpty(), Duration.ofSeconds(30));
    f.command("cmd-agent", new JsonObject().put("type", "PING"));
    SwarmFixture.await("the PING delivered", () -> delivering(heartbeats) >= 0, IDLE.plusSeconds(20));
    int delivered = delivering(heartbeats);
    SwarmFixture.await("the heartbeat that answers the PING", () -> heartbeats.size() > delivered + 1, IDLE.plusSeconds(20));
    long gap = heartbeats.get(delivered + 1).getLong("receivedNanos") - heartbeats.get(delivered).getLong("receivedNanos");
    assertThat(Duration.ofNanos(gap)).as("the answer to a PING comes before the idle interval").isLessThan(IDLE.dividedBy(2));

    // RELEASE_TASK: the task in hand goes back to the swarm with the reason
    f.createTask(task("cmd-1", "step: write held.txt mine\nstep: sleep 120"));
    f.awaitTask("cmd-1", t -> t.getString("status").equals("in_progress"), Duration.ofSeconds(60));
    SwarmFixture.await("the lease on held.txt", () -> leaseEvents("cmd-1").contains("acquired held.txt"), Duration.ofSeconds(60));
    f.command("cmd-agent", new JsonObject().put("type", "RELEASE_TASK").put("taskId", "cmd-1").put("reason", "rebalancing"));
    JsonObject released = f.awaitTask("cmd-1", t -> t.getInteger("retryCount", 0) == 1, Duration.ofSeconds(60));
    assertThat(released.getString("status")).isEqualTo("pending_retry");
    assertThat(released.getString("failureType")).isEqualTo("agent_crash");
    assertThat(released.getString("lastError")).isEqualTo("released: rebalancing");
    assertThat(leaseEvents("cmd-1")).contains("released held.txt");
    // its request in the conversation ended as cancelled: the backend was stopped
    SwarmFixture.await("the request cancelled", () -> f.conversation("swarm:cmd-1").encode().contains("cancelled"), Duration.ofSeconds(30));
    f.call("POST", "/api/v1/tasks/cmd-1/cancel", new JsonObject().put("reason", "test: not again"));

    // SHUTDOWN: the program stops, releasing the task in hand
    f.createTask(task("cmd-2", "step: write second.txt mine\nstep: sleep 120"));
    SwarmFixture.await("the lease on second.txt", () -> leaseEvents("cmd-2").contains("acquired second.txt"), Duration.ofSeconds(60));
    f.command("cmd-agent", new JsonObject().put("type", "SHUTDOWN").put("reason", "maintenance"));
    assertThat(agent.exit().get(60, TimeUnit.SECONDS)).isZero();
    assertThat(agent.out()).contains("conclave-agent: stopping (SHUTDOWN from the coordinator: maintenance)");
    JsonObject second = f.task("cmd-2");
    assertThat(second.getString("status")).isEqualTo("pending_retry");
    assertThat(second.getString("lastError")).isEqualTo("released: the agent is stopping (SHUTDOWN from the coordinator: maintenance)");
    assertThat(leaseEvents("cmd-2")).contains("released second.txt");
    int after = heartbeats.size();
    Thread.sleep(IDLE.toMillis() / 4);
    assertThat(heartbeats).as("no heartbeat after the stop").hasSize(after);
    events.unregister();
  }

  /** The index of the heartbeat that delivered a command, or -1. */
  private static int delivering(List<JsonObject> heartbeats) {
    for (int i = 0; i < heartbeats.size(); i++) {
      if (heartbeats.get(i).getJsonObject("data").getInteger("commandsDelivered", 0) > 0) {
        return i;
      }
    }
    return -1;
  }

  private static JsonObject task(String id, String steps) {
    return new JsonObject().put("id", id).put("title", "a long task " + id).put("description", steps)
      .put("requiredSkills", new JsonArray().add("ops"));
  }

  private static List<String> leaseEvents(String task) {
    return f.history(task).stream().map(JsonObject.class::cast).filter(e -> e.getString("kind").equals("lease"))
      .map(e -> e.getString("event") + " " + e.getJsonObject("data").getString("filePath")).toList();
  }
}
