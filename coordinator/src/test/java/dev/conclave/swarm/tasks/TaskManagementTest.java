package dev.conclave.swarm.tasks;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Operators create, list, read and cancel tasks. */
class TaskManagementTest {

  /** A skill no agent has: tasks that need it are never claimed by other tests' agents. */
  private static final JsonArray NOBODY = new JsonArray().add("nobody-has-this-skill");

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
  void oneTaskIsCreatedWithDefaults() {
    Reply reply = api.post("/api/v1/tasks", new JsonObject().put("title", "Write the README"));

    assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
    JsonObject task = reply.json();
    assertThat(task.getString("id")).matches("[0-9a-f-]{36}");
    assertThat(task.getString("status")).isEqualTo("ready");
    assertThat(task.getString("priority")).isEqualTo("medium");
    assertThat(task.getString("type")).isEqualTo("code");
    assertThat(task.getInteger("maxRetries")).isEqualTo(2);
    assertThat(task.getJsonArray("requiredSkills")).isEmpty();
    assertThat(api.task(task.getString("id"))).isEqualTo(task);
    // out of the way of other tests' agents, which could otherwise claim it
    api.post("/api/v1/tasks/" + task.getString("id") + "/cancel", null);
  }

  @Test
  void manyTasksAreCreatedAtOnceWithDependenciesOnEarlierOnes() {
    String p = UUID.randomUUID().toString().substring(0, 6);
    Reply reply = api.createTasks(new JsonArray()
      .add(new JsonObject().put("id", p + "-a").put("title", "a").put("requiredSkills", new JsonArray().add("TypeScript").add(" react ")))
      .add(new JsonObject().put("id", p + "-b").put("title", "b").put("dependencies", new JsonArray().add(p + "-a").add(p + "-a"))));

    assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
    JsonArray tasks = reply.array("tasks");
    assertThat(tasks.getJsonObject(0).getString("status")).isEqualTo("ready");
    assertThat(tasks.getJsonObject(0).getJsonArray("requiredSkills")).containsExactly("react", "typescript");
    assertThat(tasks.getJsonObject(1).getString("status")).isEqualTo("blocked");
    assertThat(tasks.getJsonObject(1).getJsonArray("dependencies")).containsExactly(p + "-a");
  }

  @Test
  void aTasksHistoryKeepsEveryStepItsRetryAndItsLeases() {
    Scenario s = new Scenario(api);
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("history"));
    assertThat(api.acquire(agent, task, "src/" + task + ".java", 60_000).status()).isEqualTo(200);
    assertThat(api.fail(agent, task, "task_error", true).json().getBoolean("willRetry")).isTrue();

    Reply reply = api.get("/api/v1/tasks/" + task + "/history");
    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    List<String> steps = reply.json().getJsonArray("history").stream().map(e -> (JsonObject) e)
      .map(e -> e.getString("kind") + ":" + e.getString("event")).toList();
    assertThat(steps).containsSubsequence("task:created", "task:claimed", "lease:acquired", "lease:released");
    assertThat(steps).containsSubsequence("task:claimed", "task:failed");
    JsonObject failed = reply.json().getJsonArray("history").stream().map(e -> (JsonObject) e)
      .filter(e -> "failed".equals(e.getString("event"))).findFirst().orElseThrow();
    assertThat(failed.getJsonObject("data").getString("status")).isEqualTo("pending_retry");
    assertThat(failed.getJsonObject("data").containsKey("nextRetryAt")).isTrue();
    List<Long> seqs = reply.json().getJsonArray("history").stream().map(e -> ((JsonObject) e).getLong("seq")).toList();
    assertThat(seqs).isSorted();

    assertThat(api.get("/api/v1/tasks/no-such-task/history").status()).isEqualTo(404);
  }

  @Test
  void badTasksAreRejectedNamingTheField() {
    String p = UUID.randomUUID().toString().substring(0, 6);
    Reply forward = api.createTasks(new JsonArray()
      .add(new JsonObject().put("id", p + "-x").put("title", "x").put("dependencies", new JsonArray().add(p + "-y")))
      .add(new JsonObject().put("id", p + "-y").put("title", "y")));
    assertThat(forward.status()).isEqualTo(400);
    assertThat(forward.json().getString("field")).isEqualTo("tasks[0].dependencies");
    assertThat(api.get("/api/v1/tasks/" + p + "-y").status()).as("nothing of a rejected request is created").isEqualTo(404);

    Reply self = api.post("/api/v1/tasks", new JsonObject().put("id", p + "-s").put("title", "s").put("dependencies", new JsonArray().add(p + "-s")));
    assertThat(self.status()).isEqualTo(400);
    Reply priority = api.post("/api/v1/tasks", new JsonObject().put("title", "t").put("priority", "urgent"));
    assertThat(priority.json().getString("field")).isEqualTo("priority");
    Reply noTitle = api.createTasks(new JsonArray().add(new JsonObject().put("title", "ok")).add(new JsonObject().put("type", "code")));
    assertThat(noTitle.json().getString("field")).isEqualTo("tasks[1].title");
    Reply repeated = api.createTasks(new JsonArray().add(new JsonObject().put("id", p + "-r").put("title", "1"))
      .add(new JsonObject().put("id", p + "-r").put("title", "2")));
    assertThat(repeated.status()).isEqualTo(400);
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i < 1001; i++) {
      tooMany.add(new JsonObject().put("title", "t" + i));
    }
    assertThat(api.createTasks(tooMany).json().getString("field")).isEqualTo("tasks");
    Reply skills = api.post("/api/v1/tasks", new JsonObject().put("title", "t").put("requiredSkills", "java"));
    assertThat(skills.json().getString("field")).isEqualTo("requiredSkills");
  }

  @Test
  void anExistingIdIsAConflict() {
    String id = "dup-" + UUID.randomUUID().toString().substring(0, 6);
    api.post("/api/v1/tasks", new JsonObject().put("id", id).put("title", "first").put("requiredSkills", NOBODY));

    Reply reply = api.post("/api/v1/tasks", new JsonObject().put("id", id).put("title", "second"));

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.code()).isEqualTo("task_already_exists");
    assertThat(api.task(id).getString("title")).isEqualTo("first");
  }

  @Test
  void theListFiltersAndPages() {
    String branch = "list-" + UUID.randomUUID().toString().substring(0, 6);
    JsonArray tasks = new JsonArray();
    for (int i = 0; i < 5; i++) {
      tasks.add(new JsonObject().put("id", branch + "-" + i).put("title", "t" + i).put("branch", branch).put("requiredSkills", NOBODY)
        .put("priority", i % 2 == 0 ? "high" : "low"));
    }
    api.createTasks(tasks);

    JsonObject high = api.get("/api/v1/tasks?branch=" + branch + "&priority=high").json();
    assertThat(high.getJsonArray("tasks")).hasSize(3);

    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      JsonObject page = api.get("/api/v1/tasks?branch=" + branch + "&limit=2" + (cursor == null ? "" : "&after=" + cursor)).json();
      page.getJsonArray("tasks").forEach(t -> seen.add(((JsonObject) t).getString("id")));
      cursor = page.getString("nextCursor");
    } while (cursor != null);
    assertThat(seen).containsExactly(branch + "-0", branch + "-1", branch + "-2", branch + "-3", branch + "-4");


    String skill = branch + "-skill";
    api.post("/api/v1/tasks", new JsonObject().put("id", branch + "-skilled").put("title", "needs a skill").put("branch", branch)
      .put("requiredSkills", new JsonArray().add(skill).add("nobody-has-this")));
    JsonObject skilled = api.get("/api/v1/tasks?branch=" + branch + "&skill=" + skill).json();
    assertThat(skilled.getJsonArray("tasks")).hasSize(1);
    assertThat(skilled.getJsonArray("tasks").getJsonObject(0).getString("id")).isEqualTo(branch + "-skilled");

    assertThat(api.get("/api/v1/tasks?status=ready,finished").json().getString("field")).isEqualTo("status");
    assertThat(api.get("/api/v1/tasks?skill=" + "x".repeat(200)).json().getString("field")).isEqualTo("skill");
    assertThat(api.get("/api/v1/tasks?limit=0").status()).isEqualTo(400);
    assertThat(api.get("/api/v1/tasks/no-such-task").code()).isEqualTo("task_not_found");
  }

  @Test
  void cancellingStopsTheWorkAndFreesItsLeases() {
    Scenario s = new Scenario(api);
    String agent = s.agent();
    String other = s.agent();
    String task = s.claimedBy(agent, s.task("cancel-me"));
    String file = "src/" + s.skill + ".rs";
    api.acquire(agent, task, file, 60_000);

    Reply cancelled = api.post("/api/v1/tasks/" + task + "/cancel", new JsonObject().put("reason", "scope cut"));

    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(cancelled.json().getString("status")).isEqualTo("cancelled");
    assertThat(cancelled.json().getString("cancelReason")).isEqualTo("scope cut");
    Reply progress = api.progress(agent, task, 50);
    assertThat(progress.json().getBoolean("continue")).isFalse();
    assertThat(progress.json().getString("reason")).isEqualTo("task_cancelled");
    String otherTask = s.claimedBy(other, s.task("next"));
    assertThat(api.acquire(other, otherTask, file, 1000).json().getBoolean("success")).isTrue();
    assertThat(api.post("/api/v1/tasks/" + task + "/cancel", null).status()).as("cancelling again").isEqualTo(200);
    api.complete(other, otherTask);
    assertThat(api.post("/api/v1/tasks/" + otherTask + "/cancel", null).status()).as("a completed task").isEqualTo(409);
  }
}
