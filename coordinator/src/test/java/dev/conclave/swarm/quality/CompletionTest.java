package dev.conclave.swarm.quality;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.conclave.swarm.support.Scenario.metrics;
import static org.assertj.core.api.Assertions.assertThat;

/** COMPLETE: the quality gate against the branch's baseline, releases, unblocking, memory, review. */
class CompletionTest {

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

  /** Completes one task with a clean snapshot, making it the branch's baseline. */
  private void baseline(String agent, JsonObject snapshot) {
    String task = s.claimedBy(agent, s.task("baseline"));
    Reply reply = api.complete(agent, task, SwarmApi.result("baseline"), snapshot);
    assertThat(reply.json().getBoolean("qualityGatePassed")).as(reply.toString()).isTrue();
  }

  @Test
  void aCleanCompletionPassesTheGateAndCompletesTheTask() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("clean"));

    Reply reply = api.complete(agent, task, SwarmApi.result("all good"), metrics(10, 10, 0, 0, true));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getBoolean("success")).isTrue();
    assertThat(reply.json().getBoolean("qualityGatePassed")).isTrue();
    assertThat(reply.json().getString("nextAction")).isEqualTo("proceed");
    assertThat(reply.json().getJsonArray("regressions")).isEmpty();
    JsonObject stored = api.task(task);
    assertThat(stored.getString("status")).isEqualTo("completed");
    assertThat(stored.getJsonObject("result").getString("summary")).isEqualTo("all good");
    assertThat(api.get("/api/v1/agents/" + agent).json().getString("status")).isEqualTo("idle");
  }

  @Test
  void fewerPassingTestsIsARegression() {
    String agent = s.agent();
    baseline(agent, metrics(10, 10, 2, 1, true));
    String task = s.claimedBy(agent, s.task("worse"));

    Reply reply = api.complete(agent, task, SwarmApi.result("oops"), metrics(12, 9, 2, 1, true));

    assertThat(reply.json().getBoolean("qualityGatePassed")).isFalse();
    assertThat(reply.json().getJsonArray("regressions")).containsExactly(new JsonObject().put("metric", "testsPassed")
      .put("baseline", 10).put("current", 9).put("delta", -1).put("severity", "error"));
    assertThat(reply.json().getString("nextAction")).isEqualTo("fix_regressions");
    assertThat(api.task(task).getString("status")).isEqualTo("needs_review");
  }

  @Test
  void moreLintOrTypeErrorsAndABrokenBuildAreRegressions() {
    String agent = s.agent();
    baseline(agent, metrics(10, 10, 2, 1, true));
    String task = s.claimedBy(agent, s.task("messy"));

    Reply reply = api.complete(agent, task, SwarmApi.result("messy"), metrics(10, 10, 5, 3, false));

    assertThat(reply.json().getJsonArray("regressions").stream().map(r -> ((JsonObject) r).getString("metric")))
      .containsExactlyInAnyOrder("lintErrors", "typeErrors", "buildSuccess");
    assertThat(api.task(task).getString("status")).isEqualTo("needs_review");
  }

  @Test
  void anAgentThatCannotRunTestsAndBuildsLeavesRegressionsToAPerson() {
    String agent = s.agent(false);
    baseline(agent, metrics(10, 10, 0, 0, true));
    String task = s.claimedBy(agent, s.task("limited"));

    Reply reply = api.complete(agent, task, SwarmApi.result("limited"), metrics(10, 8, 0, 0, true));

    assertThat(reply.json().getString("nextAction")).isEqualTo("manual_review");
  }

  @Test
  void aPassingSnapshotBecomesTheBaseline() {
    String agent = s.agent();
    baseline(agent, metrics(10, 10, 5, 5, true));
    String better = s.claimedBy(agent, s.task("better"));
    assertThat(api.complete(agent, better, SwarmApi.result("better"), metrics(20, 20, 1, 0, true)).json()
      .getBoolean("qualityGatePassed")).isTrue();
    String task = s.claimedBy(agent, s.task("next"));

    Reply reply = api.complete(agent, task, SwarmApi.result("next"), metrics(20, 20, 2, 0, true));

    assertThat(reply.json().getJsonArray("regressions")).containsExactly(new JsonObject().put("metric", "lintErrors")
      .put("baseline", 1).put("current", 2).put("delta", 1).put("severity", "warning"));
  }

  @Test
  void aRegressionDoesNotMoveTheBaselineAndAFixedCompletionPasses() {
    String agent = s.agent();
    baseline(agent, metrics(10, 10, 0, 0, true));
    String task = s.claimedBy(agent, s.task("fixable"));
    assertThat(api.complete(agent, task, SwarmApi.result("broken"), metrics(10, 7, 0, 0, true)).json()
      .getBoolean("qualityGatePassed")).isFalse();

    Reply fixed = api.complete(agent, task, SwarmApi.result("fixed"), metrics(10, 10, 0, 0, true));

    assertThat(fixed.json().getBoolean("qualityGatePassed")).as(fixed.toString()).isTrue();
    assertThat(api.task(task).getString("status")).isEqualTo("completed");
  }

  @Test
  void aBrokenBuildWithoutABaselineIsARegression() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("first-broken"));

    Reply reply = api.complete(agent, task, SwarmApi.result("broken"), metrics(0, 0, 0, 0, false));

    assertThat(reply.json().getBoolean("qualityGatePassed")).isFalse();
    assertThat(reply.json().getJsonArray("regressions").getJsonObject(0).getString("metric")).isEqualTo("buildSuccess");
  }

  @Test
  void completingReleasesTheTasksLeasesAndUnblocksDependents() {
    String agent = s.agent();
    String other = s.agent();
    s.create(s.task("parent"), s.task("child").put("dependencies", new JsonArray().add(s.id("parent"))));
    assertThat(api.claim(agent).json().getJsonObject("task").getString("id")).isEqualTo(s.id("parent"));
    assertThat(api.acquire(agent, s.id("parent"), "src/" + s.skill + ".ts", 60_000).json().getBoolean("success")).isTrue();
    assertThat(api.claim(other).json().getString("reason")).isEqualTo("all_tasks_claimed");

    api.complete(agent, s.id("parent"));

    assertThat(api.task(s.id("child")).getString("status")).isEqualTo("ready");
    String child = api.claim(other).json().getJsonObject("task").getString("id");
    assertThat(child).isEqualTo(s.id("child"));
    assertThat(api.acquire(other, child, "src/" + s.skill + ".ts", 60_000).json().getBoolean("success")).isTrue();
  }

  @Test
  void learningsAreSearchable() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("learned"));
    String marker = "zebracorn" + s.skill.substring(6);
    api.complete(agent, task, SwarmApi.result("done", "The " + marker + " cache must be warmed before load tests"), null);

    Reply found = api.get("/api/v1/learnings?q=" + marker + "%20cache");

    assertThat(found.status()).isEqualTo(200);
    assertThat(found.array("learnings")).hasSize(1);
    assertThat(found.array("learnings").getJsonObject(0).getString("agentId")).isEqualTo(agent);
    assertThat(found.array("learnings").getJsonObject(0).getString("taskId")).isEqualTo(task);
    assertThat(api.get("/api/v1/learnings?q=" + marker + "%20-cache").array("learnings")).isEmpty();
  }

  @Test
  void aRepeatedCompleteGetsTheSameAnswer() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("twice"));
    Reply first = api.complete(agent, task, SwarmApi.result("done"), metrics(3, 3, 0, 0, true));

    Reply second = api.complete(agent, task, SwarmApi.result("done"), metrics(3, 3, 0, 0, true));

    assertThat(second.status()).isEqualTo(200);
    assertThat(second.json()).isEqualTo(first.json());
  }

  @Test
  void withoutMetricsTheCompleteChecksTheTaskAsItWritesIt() {
    // (a COMPLETE without metrics is one UPDATE that writes only a task its agent may report on; the
    // answers when it writes nothing are those the reading path gives)
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("plain"));
    Reply first = api.complete(agent, task);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().getBoolean("qualityGatePassed")).isTrue();

    Reply again = api.complete(agent, task);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json()).isEqualTo(first.json());

    // a task that needs review after a regression completes again, without metrics this time
    baseline(agent, metrics(10, 10, 0, 0, true));
    String reviewed = s.claimedBy(agent, s.task("reviewed"));
    assertThat(api.complete(agent, reviewed, SwarmApi.result("broken"), metrics(10, 7, 0, 0, true)).json()
      .getBoolean("qualityGatePassed")).isFalse();
    Reply plain = api.complete(agent, reviewed);
    assertThat(plain.json().getBoolean("qualityGatePassed")).as(plain.toString()).isTrue();
    assertThat(api.task(reviewed).getString("status")).isEqualTo("completed");

    // (last: a ready task of this scenario would be the next one its agents claim)
    s.create(s.task("unclaimed"));
    String unclaimed = s.id("unclaimed");
    Reply early = api.complete(agent, unclaimed);
    assertThat(early.status()).isEqualTo(409);
    assertThat(early.code()).isEqualTo("invalid_operation");
    assertThat(early.json().getString("taskStatus")).isEqualTo("ready");
    assertThat(api.task(unclaimed).getString("status")).isEqualTo("ready");
  }

  @Test
  void onlyTheAssignedAgentCompletes() {
    String owner = s.agent();
    String intruder = s.agent();
    String task = s.claimedBy(owner, s.task("mine"));

    Reply reply = api.complete(intruder, task);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.code()).isEqualTo("task_already_claimed");
    assertThat(api.complete(owner, "no-such-task-" + s.skill).code()).isEqualTo("task_not_found");
    assertThat(api.complete(owner, "no-such-task-" + s.skill).status()).isEqualTo(404);
  }

  @Test
  void aCompletedTaskCannotBeFailedOrCompletedByAnother() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("done"));
    api.complete(agent, task);

    Reply fail = api.fail(agent, task, "task_error", true);

    assertThat(fail.status()).isEqualTo(409);
    assertThat(fail.code()).isEqualTo("invalid_operation");
  }

  @Test
  void anOperatorApprovesOrRejectsATaskThatNeedsReview() {
    String agent = s.agent();
    baseline(agent, metrics(10, 10, 0, 0, true));
    s.create(s.task("approve-me"), s.task("after-approved").put("dependencies", new JsonArray().add(s.id("approve-me"))));
    api.claim(agent);
    api.complete(agent, s.id("approve-me"), SwarmApi.result("meh"), metrics(10, 9, 0, 0, true));

    Reply approved = api.post("/api/v1/tasks/" + s.id("approve-me") + "/review", new JsonObject().put("decision", "approve"));

    assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
    assertThat(approved.json().getString("status")).isEqualTo("completed");
    assertThat(api.task(s.id("after-approved")).getString("status")).isEqualTo("ready");

    String rejectMe = s.claimedBy(agent, s.task("reject-me").put("priority", "critical"));
    api.complete(agent, rejectMe, SwarmApi.result("meh"), metrics(10, 8, 0, 0, true));
    Reply rejected = api.post("/api/v1/tasks/" + rejectMe + "/review", new JsonObject().put("decision", "reject").put("reason", "tests"));
    assertThat(rejected.json().getString("status")).isEqualTo("pending_retry");
    assertThat(rejected.json().getString("failureType")).isEqualTo("quality_failure");
    assertThat(rejected.json().getJsonArray("previousAgents")).containsExactly(agent);

    Reply notInReview = api.post("/api/v1/tasks/" + s.id("approve-me") + "/review", new JsonObject().put("decision", "approve"));
    assertThat(notInReview.status()).isEqualTo(409);
    assertThat(api.post("/api/v1/tasks/" + rejectMe + "/review", new JsonObject().put("decision", "maybe")).status()).isEqualTo(400);
  }

  @Test
  void qualityMetricsAreChecked() {
    String agent = s.agent();
    String task = s.claimedBy(agent, s.task("checked"));

    Reply reply = api.complete(agent, task, SwarmApi.result("x"), metrics(5, 6, 0, 0, true));
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.json().getString("field")).isEqualTo("qualityMetrics.testsPassed");

    Reply missing = api.complete(agent, task, SwarmApi.result("x"), new JsonObject().put("testsRan", 1));
    assertThat(missing.json().getString("field")).isEqualTo("qualityMetrics.testsPassed");

    Reply noSummary = api.complete(agent, task, new JsonObject().put("filesCreated", List.of()), null);
    assertThat(noSummary.json().getString("field")).isEqualTo("result.summary");
  }
}
