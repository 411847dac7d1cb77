package dev.conclave.swarm.tasks;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unique tasks: a task created with a {@code uniqueKey} stands for every later create with the same
 * key while it is unfinished (and, with {@code uniqueWindowMinutes}, for that long after its creation
 * even when finished): such a create answers the existing task, marked {@code existing}, instead of
 * making a new one, atomically, however many creates race.
 */
class UniqueTasksTest {

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

  private static String key() {
    return "nightly-report:" + UUID.randomUUID();
  }

  private static JsonObject task(String title, String key) {
    return new JsonObject().put("title", title).put("uniqueKey", key).put("requiredSkills", NOBODY);
  }

  @Test
  void aSecondCreateWithTheSameKeyAnswersTheFirstTask() {
    String key = key();
    Reply first = api.post("/api/v1/tasks", task("report", key));
    assertThat(first.status()).as(first.toString()).isEqualTo(201);
    assertThat(first.json().getString("uniqueKey")).isEqualTo(key);
    assertThat(first.json().containsKey("existing")).isFalse();

    Reply second = api.post("/api/v1/tasks", task("report again", key));

    assertThat(second.status()).as(second.toString()).isEqualTo(200);
    assertThat(second.json().getString("id")).isEqualTo(first.json().getString("id"));
    assertThat(second.json().getString("title")).isEqualTo("report");
    assertThat(second.json().getBoolean("existing")).isTrue();
    assertThat(api.task(first.json().getString("id")).getString("uniqueKey")).isEqualTo(key);
  }

  @Test
  void fiftyConcurrentCreatesWithOneKeyMakeOneTask() {
    String key = key();
    List<Future<Reply>> creates = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      creates.add(api.postAsync("/api/v1/tasks", task("racer " + i, key)));
    }
    List<Reply> replies = creates.stream().map(Await::await).toList();

    assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.toString()).isIn(200, 201));
    assertThat(replies.stream().filter(r -> r.status() == 201)).hasSize(1);
    Set<String> ids = replies.stream().map(r -> r.json().getString("id")).collect(Collectors.toSet());
    assertThat(ids).hasSize(1);
  }

  @Test
  void aFinishedTaskFreesItsKeyUnlessAWindowHoldsIt() {
    String key = key();
    String first = api.post("/api/v1/tasks", task("once", key)).json().getString("id");
    assertThat(api.post("/api/v1/tasks/" + first + "/cancel", null).status()).isEqualTo(200);

    Reply again = api.post("/api/v1/tasks", task("twice", key));
    assertThat(again.status()).as(again.toString()).isEqualTo(201);
    assertThat(again.json().getString("id")).isNotEqualTo(first);
    api.post("/api/v1/tasks/" + again.json().getString("id") + "/cancel", null);

    Reply windowed = api.post("/api/v1/tasks", task("thrice", key).put("uniqueWindowMinutes", 60));
    assertThat(windowed.status()).as(windowed.toString()).isEqualTo(200);
    assertThat(windowed.json().getString("id")).isEqualTo(again.json().getString("id"));
    assertThat(windowed.json().getString("status")).isEqualTo("cancelled");
  }

  @Test
  void inOneRequestADependencyOnAnExistingUniqueTaskNamesThatTask() {
    String key = key();
    String existing = api.post("/api/v1/tasks", task("build", key)).json().getString("id");
    String p = UUID.randomUUID().toString().substring(0, 6);

    Reply reply = api.createTasks(new JsonArray()
      .add(task("build", key).put("id", p + "-build"))
      .add(new JsonObject().put("id", p + "-deploy").put("title", "deploy").put("requiredSkills", NOBODY)
        .put("dependencies", new JsonArray().add(p + "-build"))));

    assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
    JsonArray tasks = reply.array("tasks");
    assertThat(tasks.getJsonObject(0).getString("id")).isEqualTo(existing);
    assertThat(tasks.getJsonObject(0).getBoolean("existing")).isTrue();
    assertThat(tasks.getJsonObject(1).getString("id")).isEqualTo(p + "-deploy");
    assertThat(tasks.getJsonObject(1).getJsonArray("dependencies")).containsExactly(existing);
    assertThat(tasks.getJsonObject(1).getString("status")).isEqualTo("blocked");
  }

  @Test
  void badKeysAreRefusedNamingTheField() {
    Reply empty = api.post("/api/v1/tasks", new JsonObject().put("title", "t").put("uniqueKey", ""));
    assertThat(empty.status()).as(empty.toString()).isEqualTo(400);
    assertThat(empty.toString()).contains("uniqueKey");

    Reply notText = api.post("/api/v1/tasks", new JsonObject().put("title", "t").put("uniqueKey", 7));
    assertThat(notText.status()).as(notText.toString()).isEqualTo(400);

    Reply window = api.post("/api/v1/tasks", new JsonObject().put("title", "t").put("uniqueKey", "k").put("uniqueWindowMinutes", -1));
    assertThat(window.status()).as(window.toString()).isEqualTo(400);
    assertThat(window.toString()).contains("uniqueWindowMinutes");

    String key = key();
    Reply twice = api.createTasks(new JsonArray().add(task("a", key)).add(task("b", key)));
    assertThat(twice.status()).as(twice.toString()).isEqualTo(400);
    assertThat(twice.toString()).contains("tasks[1].uniqueKey");
  }
}
