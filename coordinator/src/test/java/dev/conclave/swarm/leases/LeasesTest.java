package dev.conclave.swarm.leases;

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

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** ACQUIRE_LEASE and RELEASE_LEASE: exclusive, extendable, capped, expiring, owner-only release. */
class LeasesTest {

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
  void aLeaseIsGrantedExtendedRefusedToOthersAndTakenOverOnceExpired() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String taskA = s.claimedBy(a, s.task("a"));
    String taskB = s.claimedBy(b, s.task("b"));
    String file = "src/" + s.skill + "/shared.ts";
    Instant start = swarm.clock().instant();

    Reply granted = api.acquire(a, taskA, file, 60_000);
    assertThat(granted.json().getBoolean("success")).isTrue();
    assertThat(granted.json().getJsonObject("lease").getString("filePath")).isEqualTo(file);
    assertThat(Instant.parse(granted.json().getJsonObject("lease").getString("expiresAt"))).isEqualTo(start.plusSeconds(60));

    swarm.advanceKeepingAlive(Duration.ofSeconds(30), a, b);
    Reply extended = api.acquire(a, taskA, file, 120_000);
    assertThat(Instant.parse(extended.json().getJsonObject("lease").getString("expiresAt"))).isEqualTo(start.plusSeconds(150));

    Reply refused = api.acquire(b, taskB, file, 60_000);
    assertThat(refused.status()).isEqualTo(200);
    assertThat(refused.json().getBoolean("success")).isFalse();
    assertThat(refused.json().getString("heldBy")).isEqualTo(a);
    assertThat(Instant.parse(refused.json().getString("heldUntil"))).isEqualTo(start.plusSeconds(150));

    swarm.advanceKeepingAlive(Duration.ofSeconds(120), a, b);
    Reply takenOver = api.acquire(b, taskB, file, 60_000);
    assertThat(takenOver.json().getBoolean("success")).as(takenOver.toString()).isTrue();
    assertThat(api.acquire(a, taskA, file, 60_000).json().getString("heldBy")).isEqualTo(b);
  }

  /** The task history names each lease's file: its entries are the lease events, whose file is their id, not their data. */
  @Test
  void aTasksHistoryNamesTheFilesOfItsLeases() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String task = s.claimedBy(a, s.task("a"));
    String file = "src/" + s.skill + "/history.ts";
    assertThat(api.acquire(a, task, file, 60_000).json().getBoolean("success")).isTrue();
    assertThat(api.complete(a, task).status()).isEqualTo(200);

    JsonArray history = api.get("/api/v1/tasks/" + task + "/history").json().getJsonArray("history");
    List<String> leases = history.stream().map(JsonObject.class::cast).filter(e -> e.getString("kind").equals("lease"))
      .map(e -> e.getString("event") + " " + e.getJsonObject("data").getString("filePath")).toList();
    assertThat(leases).containsExactly("acquired " + file, "released " + file);
  }

  @Test
  void durationsAreCappedAtOneHour() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String task = s.claimedBy(a, s.task("long"));

    Reply reply = api.acquire(a, task, "src/" + s.skill + "/long.ts", Duration.ofDays(2).toMillis());

    assertThat(Instant.parse(reply.json().getJsonObject("lease").getString("expiresAt")))
      .isEqualTo(swarm.clock().instant().plus(Duration.ofHours(1)));
  }

  @Test
  void onlyTheOwnerReleasesALease() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String taskA = s.claimedBy(a, s.task("a"));
    String file = "src/" + s.skill + "/mine.ts";
    api.acquire(a, taskA, file, 60_000);

    Reply notYours = api.release(b, file);
    assertThat(notYours.status()).isEqualTo(403);
    assertThat(notYours.code()).isEqualTo("lease_not_owned");
    assertThat(notYours.json().getString("heldBy")).isEqualTo(a);

    Reply released = api.release(a, file);
    assertThat(released.status()).isEqualTo(200);
    assertThat(released.json().getBoolean("success")).isTrue();
    assertThat(api.release(a, file).json().getBoolean("success")).as("releasing again is harmless").isTrue();
    String taskB = s.claimedBy(b, s.task("b"));
    assertThat(api.acquire(b, taskB, file, 1000).json().getBoolean("success")).isTrue();
  }

  @Test
  void expiredLeasesAreReleasedByTheSweeper() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String task = s.claimedBy(a, s.task("short"));
    String file = "src/" + s.skill + "/short.ts";
    api.acquire(a, task, file, 1000);

    swarm.clock().advance(Duration.ofSeconds(1));

    JsonObject expired = swarm.events().await("lease", "expired", file);
    assertThat(expired.getJsonObject("data").getString("agentId")).isEqualTo(a);
  }

  @Test
  void aLeaseNeedsATaskTheAgentHolds() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String taskB = s.claimedBy(b, s.task("bs"));

    assertThat(api.acquire(a, taskB, "x.ts", 1000).code()).isEqualTo("task_already_claimed");
    assertThat(api.acquire(a, "no-task-" + s.skill, "x.ts", 1000).code()).isEqualTo("task_not_found");
    Reply badDuration = api.acquire(a, taskB, "x.ts", 0);
    assertThat(badDuration.status()).isEqualTo(400);
    assertThat(badDuration.json().getString("field")).isEqualTo("durationMs");
  }

  /**
   * Seed 001's first rule comes first: a file another agent holds is refused with heldBy and
   * heldUntil whatever else is wrong with the request; once it is free, the request's own problem.
   */
  @Test
  void aFileHeldByAnotherAgentIsRefusedWithItsHolderWhateverElseIsWrong() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String taskA = s.claimedBy(a, s.task("held"));
    String taskB = s.claimedBy(b, s.task("other"));
    String file = "src/" + s.skill + "/held.ts";
    Reply granted = api.acquire(a, taskA, file, 60_000);
    assertThat(granted.json().getBoolean("success")).isTrue();
    String until = granted.json().getJsonObject("lease").getString("expiresAt");

    List<JsonObject> wrong = List.of(
      v1().put("agentId", "never-registered-" + s.skill).put("taskId", taskB).put("filePath", file).put("durationMs", 1000),
      v1().put("agentId", b).put("taskId", taskA).put("filePath", file).put("durationMs", 1000),
      v1().put("agentId", b).put("taskId", "no-such-task").put("filePath", file).put("durationMs", 1000),
      v1().put("agentId", b).put("taskId", taskB).put("filePath", file).put("durationMs", 0),
      v1().put("agentId", b).put("taskId", taskB).put("filePath", file).put("durationMs", "soon"),
      v1().put("agentId", b).put("filePath", file),
      v1().put("agentId", 17).put("taskId", taskB).put("filePath", file).put("durationMs", 1000),
      v1().put("agentId", "bad id with spaces").put("taskId", taskB).put("filePath", file).put("durationMs", 1000));
    for (JsonObject request : wrong) {
      Reply refused = api.post("/api/v1/leases/acquire", request);
      assertThat(refused.status()).as("%s -> %s", request, refused).isEqualTo(200);
      assertThat(refused.json().getBoolean("success")).isFalse();
      assertThat(refused.json().getString("heldBy")).isEqualTo(a);
      assertThat(refused.json().getString("heldUntil")).isEqualTo(until);
    }

    // the holder's own bad request, and anyone's on a free file, get the request's problem
    Reply holdersBad = api.acquire(a, taskA, file, 0);
    assertThat(holdersBad.status()).isEqualTo(400);
    assertThat(holdersBad.json().getString("field")).isEqualTo("durationMs");
    Reply freeBad = api.post("/api/v1/leases/acquire", v1().put("agentId", b).put("taskId", taskB)
      .put("filePath", "src/" + s.skill + "/free.ts").put("durationMs", "soon"));
    assertThat(freeBad.status()).isEqualTo(400);
    assertThat(freeBad.json().getString("field")).isEqualTo("durationMs");
    Reply freeUnknown = api.acquire("never-registered-" + s.skill, taskB, "src/" + s.skill + "/free.ts", 1000);
    assertThat(freeUnknown.status()).as(freeUnknown.toString()).isEqualTo(404);
  }

  @Test
  void concurrentAcquiresGrantEachFileToExactlyOneAgent() throws Exception {
    Scenario s = new Scenario(api);
    int agents = 24;
    int files = 6;
    List<String> ids = new ArrayList<>();
    Map<String, String> taskOf = new HashMap<>();
    for (int i = 0; i < agents; i++) {
      String agent = s.agent();
      ids.add(agent);
      taskOf.put(agent, s.claimedBy(agent, s.task("t" + i)));
    }

    for (int round = 0; round < 3; round++) {
      List<Future<Reply>> attempts = new ArrayList<>();
      List<String> who = new ArrayList<>();
      for (int f = 0; f < files; f++) {
        String file = "src/" + s.skill + "/round" + round + "/f" + f;
        for (String agent : ids) {
          who.add(agent + "|" + file);
          attempts.add(api.postAsync("/api/v1/leases/acquire", v1().put("agentId", agent).put("taskId", taskOf.get(agent))
            .put("filePath", file).put("durationMs", 60_000)));
        }
      }
      Future.join(attempts).await(60, TimeUnit.SECONDS);

      Map<String, List<String>> winners = new HashMap<>();
      Map<String, List<String>> heldBy = new HashMap<>();
      for (int i = 0; i < attempts.size(); i++) {
        Reply reply = attempts.get(i).result();
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        String[] parts = who.get(i).split("\\|");
        if (reply.json().getBoolean("success")) {
          winners.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(parts[0]);
        } else {
          heldBy.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(reply.json().getString("heldBy"));
        }
      }
      assertThat(winners).hasSize(files);
      for (Map.Entry<String, List<String>> won : winners.entrySet()) {
        assertThat(won.getValue()).as("winners of " + won.getKey()).hasSize(1);
        assertThat(heldBy.get(won.getKey())).hasSize(agents - 1).containsOnly(won.getValue().get(0));
      }
    }
  }
}
