package dev.conclave.swarm.claims;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * 64 agents claim and complete 10,000 tasks (a third of them with dependencies) concurrently over
 * HTTP. Every task is claimed exactly once, and no task is claimed before all of its dependencies
 * were completed: the coordinator's events carry a sequence assigned in commit order of the changes,
 * so a claim must come after the completions it depends on.
 */
class ConcurrentClaimTest {

  private static final int TASKS = 10_000;
  private static final int CLAIMERS = 64;
  private static final String SKILL = "load";

  private static final AtomicInteger EMPTY_CLAIMS = new AtomicInteger();
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
  void everyTaskIsClaimedExactlyOnceAndNeverBeforeItsDependencies() throws Exception {
    Random random = new Random(42);
    Map<String, List<String>> dependencies = new HashMap<>();
    String[] priorities = {"critical", "high", "medium", "low"};
    for (int batch = 0; batch < TASKS / 1000; batch++) {
      JsonArray tasks = new JsonArray();
      for (int i = batch * 1000; i < (batch + 1) * 1000; i++) {
        List<String> deps = new ArrayList<>();
        if (i >= 50 && random.nextInt(3) == 0) {
          for (int d = 0; d <= random.nextInt(3); d++) {
            deps.add("t" + (i - 1 - random.nextInt(Math.min(i, 300))));
          }
        }
        dependencies.put("t" + i, deps.stream().distinct().toList());
        tasks.add(new JsonObject().put("id", "t" + i).put("title", "task " + i).put("priority", priorities[random.nextInt(4)])
          .put("requiredSkills", new JsonArray().add(SKILL)).put("dependencies", new JsonArray(deps)));
      }
      Reply created = api.createTasks(tasks);
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < CLAIMERS; i++) {
      agents.add("claimer-" + i);
      assertThat(api.register("claimer-" + i, List.of(SKILL)).status()).isEqualTo(200);
    }

    Map<String, String> claimedBy = new ConcurrentHashMap<>();
    List<String> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger completed = new AtomicInteger();
    long t0 = System.nanoTime();
    List<Future<Void>> loops = new ArrayList<>();
    for (String agent : agents) {
      Promise<Void> done = Promise.promise();
      work(agent, claimedBy, duplicates, completed, done);
      loops.add(done.future());
    }
    Future.all(loops).await(120, TimeUnit.SECONDS);
    long millis = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("concurrent claim: %d tasks, %d claimers, %d ms, %d empty claims%n", TASKS, CLAIMERS, millis, EMPTY_CLAIMS.get());

    assertThat(duplicates).as("tasks handed out twice").isEmpty();
    assertThat(claimedBy).hasSize(TASKS);
    assertThat(completed.get()).isEqualTo(TASKS);
    assertThat(claimedBy.values().stream().distinct().count()).as("work spread over the claimers").isGreaterThan(CLAIMERS / 2);

    Waits.until(() -> swarm.events().of("task", "claimed", null).size() >= TASKS
      && swarm.events().of("task", "completed", null).size() >= TASKS, Duration.ofSeconds(60), "all events");
    Map<String, Long> claimSeq = new HashMap<>();
    Map<String, Long> completeSeq = new HashMap<>();
    swarm.events().of("task", "claimed", null).forEach(e -> assertThat(claimSeq.put(e.getString("id"), e.getLong("seq"))).isNull());
    swarm.events().of("task", "completed", null).forEach(e -> completeSeq.put(e.getString("id"), e.getLong("seq")));
    int checked = 0;
    for (Map.Entry<String, List<String>> task : dependencies.entrySet()) {
      for (String dep : task.getValue()) {
        assertThat(claimSeq.get(task.getKey())).as(task.getKey() + " claimed after " + dep + " completed")
          .isGreaterThan(completeSeq.get(dep));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(TASKS / 3);
  }

  private static void work(String agent, Map<String, String> claimedBy, List<String> duplicates, AtomicInteger completed,
                           Promise<Void> done) {
    if (completed.get() >= TASKS) {
      done.tryComplete();
      return;
    }
    api.postAsync("/api/v1/tasks/claim", v1().put("agentId", agent)).onComplete(ar -> {
      if (ar.failed() || ar.result().status() != 200) {
        done.tryFail(ar.failed() ? ar.cause() : new AssertionError("claim failed: " + ar.result()));
        return;
      }
      JsonObject body = ar.result().json();
      if (!body.getBoolean("success")) {
        EMPTY_CLAIMS.incrementAndGet();
        // others hold the remaining work, or it waits for dependencies: look again shortly
        swarmVertxTimer(5, () -> work(agent, claimedBy, duplicates, completed, done));
        return;
      }
      String task = body.getJsonObject("task").getString("id");
      if (claimedBy.putIfAbsent(task, agent) != null) {
        duplicates.add(task);
      }
      api.postAsync("/api/v1/tasks/" + task + "/complete", v1().put("agentId", agent).put("result", SwarmApi.result("ok")))
        .onComplete(c -> {
          if (c.failed() || c.result().status() != 200) {
            done.tryFail(c.failed() ? c.cause() : new AssertionError("complete failed: " + c.result()));
            return;
          }
          completed.incrementAndGet();
          work(agent, claimedBy, duplicates, completed, done);
        });
    });
  }

  private static void swarmVertxTimer(long ms, Runnable action) {
    swarm.node().runtime().vertx().setTimer(ms, id -> action.run());
  }
}
