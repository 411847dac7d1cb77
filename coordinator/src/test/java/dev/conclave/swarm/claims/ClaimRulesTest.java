package dev.conclave.swarm.claims;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which task CLAIM hands out, and why it hands out none. Every test works with a skill of its own, so
 * that tasks and agents of other tests never qualify.
 */
class ClaimRulesTest {

  private static SwarmNode swarm;
  private static SwarmApi api;
  private String skill;

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
  void ownSkill() {
    skill = "skill-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private String agent(String... extraSkills) {
    String id = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> skills = new ArrayList<>(List.of(extraSkills));
    skills.add(skill);
    assertThat(api.register(id, skills).status()).isEqualTo(200);
    return id;
  }

  private JsonObject task(String id) {
    return new JsonObject().put("id", id + "-" + skill).put("title", "task " + id).put("requiredSkills", new JsonArray().add(skill));
  }

  private void create(JsonObject... tasks) {
    Reply reply = api.createTasks(new JsonArray(List.of((Object[]) tasks)));
    assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
  }

  private String claimed(String agentId) {
    return claimed(agentId, null);
  }

  private String claimed(String agentId, JsonObject filter) {
    Reply reply = api.claim(agentId, filter);
    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    JsonObject body = reply.json();
    if (!body.getBoolean("success")) {
      return body.getString("reason");
    }
    return body.getJsonObject("task").getString("id").replace("-" + skill, "");
  }

  @Test
  void tasksGoOutByPriorityThenByAge() {
    create(task("low").put("priority", "low"), task("medium-old"), task("critical").put("priority", "critical"));
    swarm.clock().advance(Duration.ofMillis(5));
    create(task("high").put("priority", "high"), task("medium-new"));
    String agent = agent();

    List<String> order = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      order.add(claimed(agent));
    }

    assertThat(order).containsExactly("critical", "high", "medium-old", "medium-new", "low");
  }

  @Test
  void theClaimedTaskHasTheSpecShape() {
    create(task("shaped").put("description", "the description").put("priority", "high").put("type", "test")
      .put("estimatedMinutes", 30).put("files", new JsonArray().add("src/a.ts")).put("branch", "feature/x"));
    String agent = agent();

    JsonObject task = api.claim(agent).json().getJsonObject("task");

    assertThat(task.getString("id")).isEqualTo("shaped-" + skill);
    assertThat(task.getString("title")).isEqualTo("task shaped");
    assertThat(task.getString("description")).isEqualTo("the description");
    assertThat(task.getString("status")).isEqualTo("claimed");
    assertThat(task.getString("priority")).isEqualTo("high");
    assertThat(task.getString("type")).isEqualTo("test");
    assertThat(task.getJsonArray("requiredSkills")).containsExactly(skill);
    assertThat(task.getInteger("estimatedMinutes")).isEqualTo(30);
    assertThat(task.getJsonArray("files")).containsExactly("src/a.ts");
    assertThat(task.getJsonArray("dependencies")).isEmpty();
    assertThat(task.getInteger("retryCount")).isZero();
    assertThat(task.getJsonArray("previousAgents")).isEmpty();
    assertThat(task.getString("branch")).isEqualTo("feature/x");
    assertThat(Instant.parse(task.getString("claimedAt"))).isEqualTo(swarm.clock().instant());
    assertThat(Instant.parse(task.getString("createdAt"))).isNotNull();
  }

  @Test
  void aTaskWaitsUntilEveryDependencyIsCompleted() {
    create(task("base-a"), task("base-b"),
      task("dependent").put("priority", "critical").put("dependencies", new JsonArray().add("base-a-" + skill).add("base-b-" + skill)));
    String agent = agent();

    String first = claimed(agent);
    String second = claimed(agent);
    assertThat(List.of(first, second)).containsExactlyInAnyOrder("base-a", "base-b");
    assertThat(claimed(agent)).isEqualTo("all_tasks_claimed");
    assertThat(api.task("dependent-" + skill).getString("status")).isEqualTo("blocked");

    api.complete(agent, first + "-" + skill);
    assertThat(claimed(agent)).isEqualTo("all_tasks_claimed");
    api.complete(agent, second + "-" + skill);

    assertThat(claimed(agent)).isEqualTo("dependent");
  }

  @Test
  void aDependencyThatFailedKeepsItsDependentsBlocked() {
    create(task("will-fail").put("maxRetries", 0), task("after").put("dependencies", new JsonArray().add("will-fail-" + skill)));
    String agent = agent();
    assertThat(claimed(agent)).isEqualTo("will-fail");
    api.fail(agent, "will-fail-" + skill, "task_error", true);

    assertThat(claimed(agent)).isEqualTo("no_matching_tasks");
    assertThat(api.task("after-" + skill).getString("status")).isEqualTo("blocked");
  }

  @Test
  void everyRequiredSkillMustBeAmongTheAgentsSkills() {
    create(task("needs-two").put("requiredSkills", new JsonArray().add(skill).add("Rust")));
    String withoutRust = agent("go");
    String withRust = agent("RUST");

    assertThat(claimed(withoutRust)).isEqualTo("no_matching_tasks");
    assertThat(claimed(withRust)).isEqualTo("needs-two");
  }

  @Test
  void excludedIdsAreSkipped() {
    create(task("first"), task("second"));
    String agent = agent();

    String got = claimed(agent, new JsonObject().put("excludeIds", new JsonArray().add("first-" + skill)));

    assertThat(got).isEqualTo("second");
    assertThat(claimed(agent, new JsonObject().put("excludeIds", new JsonArray().add("first-" + skill)))).isEqualTo("all_tasks_claimed");
    assertThat(claimed(agent, new JsonObject().put("excludeIds", new JsonArray().add("first-" + skill).add("second-" + skill))))
      .isEqualTo("no_matching_tasks");
  }

  @Test
  void theFilterNarrowsPrioritiesTypesAndEstimatedMinutes() {
    create(task("low-code").put("priority", "low"),
      task("high-docs").put("priority", "high").put("type", "documentation").put("estimatedMinutes", 90),
      task("high-test-short").put("priority", "high").put("type", "test").put("estimatedMinutes", 20),
      task("medium-unestimated").put("type", "test"));
    String agent = agent();

    assertThat(claimed(agent, new JsonObject().put("priorities", new JsonArray().add("low")))).isEqualTo("low-code");
    assertThat(claimed(agent, new JsonObject().put("types", new JsonArray().add("documentation")).put("maxMinutes", 60)))
      .isEqualTo("no_matching_tasks");
    assertThat(claimed(agent, new JsonObject().put("maxMinutes", 60).put("types", new JsonArray().add("test"))))
      .isEqualTo("high-test-short");
    assertThat(claimed(agent, new JsonObject().put("maxMinutes", 60))).as("a task without an estimate passes maxMinutes")
      .isEqualTo("medium-unestimated");
    assertThat(claimed(agent, new JsonObject().put("types", new JsonArray().add("documentation")))).isEqualTo("high-docs");
  }

  @Test
  void filterSkillsNarrowWhatTheAgentOffers() {
    create(task("needs-python").put("priority", "high").put("requiredSkills", new JsonArray().add(skill).add("python")),
      task("plain"));
    String agent = agent("python");

    assertThat(claimed(agent, new JsonObject().put("skills", new JsonArray().add(skill)))).isEqualTo("plain");
    assertThat(claimed(agent, new JsonObject().put("skills", new JsonArray().add(skill).add("Python")))).isEqualTo("needs-python");
  }

  @Test
  void noMatchingTasksAndAllTasksClaimedAreTold() {
    String agent = agent();
    assertThat(claimed(agent)).isEqualTo("no_matching_tasks");

    create(task("only"));
    String other = agent();
    assertThat(claimed(other)).isEqualTo("only");

    assertThat(claimed(agent)).isEqualTo("all_tasks_claimed");
    assertThat(claimed(agent, new JsonObject().put("priorities", new JsonArray().add("critical")))).isEqualTo("no_matching_tasks");
  }

  @Test
  void aFailedTaskGoesToAnotherAgentWhileOneCouldTakeIt() {
    create(task("flaky"));
    String first = agent();
    String second = agent();
    assertThat(claimed(first)).isEqualTo("flaky");
    api.fail(first, "flaky-" + skill, "task_error", true);
    swarm.advanceKeepingAlive(Duration.ofMinutes(5), first, second);
    waitReady("flaky-" + skill);

    assertThat(claimed(first)).as("the agent that failed it, while another could take it").isEqualTo("no_matching_tasks");
    assertThat(claimed(second)).isEqualTo("flaky");
  }

  @Test
  void aFailedTaskGoesBackToItsAgentWhenNoOtherCouldTakeIt() {
    create(task("stubborn").put("requiredSkills", new JsonArray().add(skill).add("cobol")));
    String cobol = agent("cobol");
    String noCobol = agent();
    String cobolButStale = agent("cobol");
    assertThat(claimed(cobol)).isEqualTo("stubborn");
    api.fail(cobol, "stubborn-" + skill, "task_error", true);
    swarm.advanceKeepingAlive(Duration.ofMinutes(2), cobol, noCobol);
    waitReady("stubborn-" + skill);

    assertThat(claimed(noCobol)).isEqualTo("no_matching_tasks");
    assertThat(cobolButStale).as("registered but silent for two minutes: not a candidate").isNotNull();
    assertThat(claimed(cobol)).isEqualTo("stubborn");
  }

  @Test
  void learningsOfSimilarWorkComeWithTheClaim() {
    create(task("migrate-db").put("title", "Migrate the billing database to PostgreSQL"));
    String agent = agent();
    assertThat(claimed(agent)).isEqualTo("migrate-db");
    api.complete(agent, "migrate-db-" + skill, SwarmApi.result("migrated",
      "PostgreSQL migrations must take an advisory lock before altering billing tables",
      "Unrelated: the CSS grid needs a fallback"), null);

    create(task("migrate-more").put("title", "Migrate the invoices database").put("description", "same billing data, PostgreSQL"));
    JsonObject claim = api.claim(agent).json();

    JsonArray related = claim.getJsonArray("relatedLearnings");
    assertThat(related).isNotEmpty();
    assertThat(related.getJsonObject(0).getString("learning")).contains("advisory lock");
    assertThat(related.getJsonObject(0).getString("taskId")).isEqualTo("migrate-db-" + skill);
    assertThat(related.stream().map(o -> ((JsonObject) o).getString("learning"))).noneMatch(l -> l.contains("CSS"));
  }

  private static void waitReady(String taskId) {
    dev.conclave.swarm.support.Waits.until(() -> "ready".equals(api.task(taskId).getString("status")),
      Duration.ofSeconds(10), taskId + " ready again");
  }
}
