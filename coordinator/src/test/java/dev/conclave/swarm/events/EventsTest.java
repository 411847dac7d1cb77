package dev.conclave.swarm.events;

import dev.conclave.swarm.support.EventLog;
import dev.conclave.swarm.support.Scenario;
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

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** Every state change of a task, agent, lease or message is published on conclave.events.swarm. */
class EventsTest {

  private static SwarmNode swarm;
  private static SwarmApi api;
  private static EventLog events;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    api = swarm.api();
    events = swarm.events();
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  @Test
  void eventsHaveTheCataloguedShape() {
    Scenario s = new Scenario(api);
    String agent = s.agent();

    JsonObject registered = events.await("agent", "registered", agent);

    assertThat(registered.fieldNames()).containsExactlyInAnyOrder("kind", "event", "id", "at", "seq", "data");
    assertThat(Instant.parse(registered.getString("at"))).isEqualTo(swarm.clock().instant());
    assertThat(registered.getJsonObject("data").getJsonArray("skills")).containsExactly(s.skill);
  }

  @Test
  void taskChangesArePublished() {
    Scenario s = new Scenario(api);
    String agent = s.agent();
    s.create(s.task("parent"), s.task("child").put("dependencies", new JsonArray().add(s.id("parent"))), s.task("doomed"));
    api.claim(agent);
    api.progress(agent, s.id("parent"), 30);
    api.complete(agent, s.id("parent"));
    api.post("/api/v1/tasks/" + s.id("doomed") + "/cancel", new JsonObject().put("reason", "not needed"));
    api.claim(agent);
    api.fail(agent, s.id("child"), "task_error", true);
    swarm.advanceKeepingAlive(Duration.ofMinutes(1), agent);

    for (String name : List.of("parent", "child", "doomed")) {
      events.await("task", "created", s.id(name));
    }
    assertThat(events.await("task", "claimed", s.id("parent")).getJsonObject("data").getString("agentId")).isEqualTo(agent);
    assertThat(events.await("task", "progress", s.id("parent")).getJsonObject("data").getInteger("percentComplete")).isEqualTo(30);
    events.await("task", "completed", s.id("parent"));
    events.await("task", "unblocked", s.id("child"));
    assertThat(events.await("task", "cancelled", s.id("doomed")).getJsonObject("data").getString("reason")).isEqualTo("not needed");
    assertThat(events.await("task", "failed", s.id("child")).getJsonObject("data").getString("status")).isEqualTo("pending_retry");
    events.await("task", "retry_ready", s.id("child"));
    assertThat(events.of("task", "completed", s.id("parent"))).hasSize(1);
  }

  @Test
  void agentLeaseAndMessageChangesArePublished() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String task = s.claimedBy(a, s.task("work"));
    String file = "src/" + s.skill + ".ts";
    api.acquire(a, task, file, 1000);
    api.acquire(a, task, file, 2000);
    api.release(a, file);
    api.acquire(a, task, file, 1000);
    String message = api.post("/api/v1/messages", v1().put("agentId", a).put("message", new JsonObject().put("to", b)
      .put("type", "custom").put("payload", 1).put("ackRequired", true))).json().getString("messageId");
    api.get("/api/v1/messages?protocolVersion=1.0&agentId=" + b);
    api.post("/api/v1/messages/" + message + "/ack", v1().put("agentId", b));
    api.post("/api/v1/agents/" + b + "/commands", new JsonObject().put("type", "PING"));
    api.heartbeat(b, "busy");
    swarm.clock().advance(Duration.ofSeconds(121));

    events.await("lease", "acquired", file);
    events.await("lease", "extended", file);
    events.await("lease", "released", file);
    events.await("message", "sent", message);
    events.await("message", "delivered", message);
    events.await("message", "acked", message);
    events.await("agent", "command_queued", b);
    assertThat(events.await("agent", "heartbeat", b).getJsonObject("data").getString("status")).isEqualTo("busy");
    assertThat(events.await("agent", "offline", a).getJsonObject("data").getInteger("failedTasks")).isEqualTo(1);
    assertThat(events.await("task", "failed", task).getJsonObject("data").getString("failureType")).isEqualTo("agent_crash");
  }
}
