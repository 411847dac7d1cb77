package dev.conclave.swarm.tasks;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
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
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Operators act on many tasks at once: {@code POST /api/v1/tasks/bulk} retries, cancels or
 * re-prioritises every task a filter matches, in one transaction, and says how many matched and how
 * many it changed; {@code POST /api/v1/tasks/:id/retry} retries one.
 */
class BulkTasksTest {

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

  private static JsonObject bulk(String action, JsonObject filter) {
    return new JsonObject().put("action", action).put("filter", filter);
  }

  /** Creates {@code n} tasks of the scenario's skill that fail for good at their first attempt. */
  private static List<String> failed(Scenario s, int n) {
    JsonArray tasks = new JsonArray();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      JsonObject t = s.task("f" + i).put("maxRetries", 0);
      tasks.add(t);
      ids.add(t.getString("id"));
    }
    Reply created = api.createTasks(tasks);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    List<Future<?>> workers = new ArrayList<>();
    int agents = Math.min(8, n);
    for (int a = 0; a < agents; a++) {
      String agent = s.agent();
      Future<?> chain = Future.succeededFuture();
      for (int i = a; i < n; i += agents) {
        chain = chain.compose(x -> api.postAsync("/api/v1/tasks/claim", SwarmApi.v1().put("agentId", agent)))
          .compose(claim -> {
            String id = claim.json().getJsonObject("task").getString("id");
            return api.postAsync("/api/v1/tasks/" + id + "/fail", SwarmApi.v1().put("agentId", agent).put("failure",
              new JsonObject().put("type", "task_error").put("message", "broken").put("recoverable", false)));
          })
          .map(reply -> {
            assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
            return reply;
          });
      }
      workers.add(chain);
    }
    await(Future.all(workers));
    return ids;
  }

  @Test
  void aBulkRetryOfAThousandFailedTasksIsAtomicAndReported() {
    Scenario s = new Scenario(api);
    List<String> ids = failed(s, 1000);
    JsonObject filter = new JsonObject().put("status", new JsonArray().add("failed")).put("skill", s.skill);

    // two operators at once: one transaction takes all thousand, the other finds none left to retry
    Future<Reply> one = api.postAsync("/api/v1/tasks/bulk", bulk("retry", filter));
    Future<Reply> two = api.postAsync("/api/v1/tasks/bulk", bulk("retry", filter));
    Reply a = Await.await(one);
    Reply b = Await.await(two);

    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    assertThat(b.status()).as(b.toString()).isEqualTo(200);
    List<Integer> changed = List.of(a.json().getInteger("changed"), b.json().getInteger("changed"));
    assertThat(changed).containsExactlyInAnyOrder(1000, 0);
    JsonObject winner = a.json().getInteger("changed") == 1000 ? a.json() : b.json();
    assertThat(winner.getString("action")).isEqualTo("retry");
    assertThat(winner.getInteger("matched")).isEqualTo(1000);
    for (String id : List.of(ids.get(0), ids.get(499), ids.get(999))) {
      JsonObject task = api.task(id);
      assertThat(task.getString("status")).isEqualTo("ready");
      assertThat(task.getInteger("retryCount")).isZero();
    }
    // a retried task is claimable again
    String agent = s.agent();
    Reply claim = api.claim(agent);
    assertThat(claim.json().getBoolean("success")).as(claim.toString()).isTrue();
  }

  @Test
  void aBulkCancelAndARepriortisationActOnlyOnWhatTheirFilterMatches() {
    Scenario s = new Scenario(api);
    s.create(s.task("a"), s.task("b"), s.task("c").put("requiredSkills", new JsonArray().add(s.skill).add("other-skill")));
    Scenario elsewhere = new Scenario(api);
    elsewhere.create(elsewhere.task("x"));

    Reply prio = api.post("/api/v1/tasks/bulk", bulk("reprioritize", new JsonObject().put("skill", s.skill)).put("priority", "critical"));
    assertThat(prio.status()).as(prio.toString()).isEqualTo(200);
    assertThat(prio.json().getInteger("matched")).isEqualTo(3);
    assertThat(prio.json().getInteger("changed")).isEqualTo(3);
    assertThat(api.task(s.id("a")).getString("priority")).isEqualTo("critical");

    Reply cancel = api.post("/api/v1/tasks/bulk", bulk("cancel", new JsonObject().put("skill", "other-skill")
      .put("status", new JsonArray().add("ready"))).put("reason", "not needed"));
    assertThat(cancel.status()).as(cancel.toString()).isEqualTo(200);
    assertThat(cancel.json().getInteger("matched")).isEqualTo(1);
    assertThat(api.task(s.id("c")).getString("status")).isEqualTo("cancelled");
    assertThat(api.task(s.id("a")).getString("status")).isEqualTo("ready");
    assertThat(api.task(elsewhere.id("x")).getString("priority")).isEqualTo("medium");

    Reply again = api.post("/api/v1/tasks/bulk", bulk("cancel", new JsonObject().put("ids", new JsonArray().add(s.id("c")).add(s.id("a")))));
    assertThat(again.json().getInteger("matched")).isEqualTo(2);
    assertThat(again.json().getInteger("changed")).as("a cancelled task is not cancelled twice").isEqualTo(1);
  }

  @Test
  void oneFailedTaskIsRetriedAndAReadyOneIsNot() {
    Scenario s = new Scenario(api);
    String id = failed(s, 1).get(0);

    Reply retry = api.post("/api/v1/tasks/" + id + "/retry", null);
    assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
    assertThat(retry.json().getString("status")).isEqualTo("ready");

    Reply notFailed = api.post("/api/v1/tasks/" + id + "/retry", null);
    assertThat(notFailed.status()).as(notFailed.toString()).isEqualTo(409);
    assertThat(notFailed.code()).isEqualTo("invalid_operation");
    assertThat(api.post("/api/v1/tasks/no-such-task/retry", null).status()).isEqualTo(404);
  }

  @Test
  void badBulkRequestsAreRefusedNamingTheField() {
    Reply action = api.post("/api/v1/tasks/bulk", bulk("explode", new JsonObject().put("skill", "x")));
    assertThat(action.status()).as(action.toString()).isEqualTo(400);
    assertThat(action.toString()).contains("action");

    Reply noFilter = api.post("/api/v1/tasks/bulk", new JsonObject().put("action", "cancel"));
    assertThat(noFilter.status()).as(noFilter.toString()).isEqualTo(400);
    assertThat(noFilter.toString()).contains("filter");

    Reply emptyFilter = api.post("/api/v1/tasks/bulk", bulk("cancel", new JsonObject()));
    assertThat(emptyFilter.status()).as(emptyFilter.toString()).isEqualTo(400);
    assertThat(emptyFilter.toString()).contains("filter");

    Reply noPriority = api.post("/api/v1/tasks/bulk", bulk("reprioritize", new JsonObject().put("skill", "x")));
    assertThat(noPriority.status()).as(noPriority.toString()).isEqualTo(400);
    assertThat(noPriority.toString()).contains("priority");

    Reply status = api.post("/api/v1/tasks/bulk", bulk("retry", new JsonObject().put("status", new JsonArray().add("sleeping"))));
    assertThat(status.status()).as(status.toString()).isEqualTo(400);
    assertThat(status.toString()).contains("filter.status");
  }
}
