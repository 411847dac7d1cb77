package dev.conclave.e2e.swarm;

import dev.conclave.e2e.support.LocalCluster;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A schedule on three coordinator processes sharing one PostgreSQL, in real time (every second, the
 * nodes ticking every 100 ms), through a kill -9 of one of them: every slot from the first to the last
 * fired made exactly one task or was counted missed, never two, and the survivors go on firing. Then
 * the whole cluster killed and one node back: the slots it was down for make one task between them,
 * not a burst, and the rest are counted missed (docs/swarm.md, "Catch-up rule").
 */
class ScheduleKillIT {

  private static final String SECRET = "schedule-kill-it-shared-secret-0123456789";

  @Test
  void aScheduleFiresOncePerSlotAcrossThreeNodesThroughAKill9() throws Exception {
    try (LocalCluster cluster = new LocalCluster(3, "coordinator", SECRET, 5,
      Map.of("CONCLAVE_SWARM_JOB_INTERVAL_MS", "100", "CONCLAVE_SWARM_RATE_LIMITS", "false"))) {
      cluster.startAll();
      String token = cluster.adminToken();
      AdminHttp first = new AdminHttp(cluster.httpPort(0), token);
      AdminHttp survivor = new AdminHttp(cluster.httpPort(1), token);
      JsonObject made = first.post("/api/v1/schedules", new JsonObject().put("name", "heartbeat").put("every", "PT1S")
        .put("task", new JsonObject().put("title", "tick").put("requiredSkills", new JsonArray().add("nobody-has-this"))));
      Instant firstSlot = Instant.parse(made.getString("nextRunAt"));

      Thread.sleep(6_000);
      cluster.node(0).kill();
      long runsAtKill = survivor.get("/api/v1/schedules/heartbeat").getLong("runs");
      Thread.sleep(6_000);

      JsonObject schedule = survivor.get("/api/v1/schedules/heartbeat");
      List<JsonObject> tasks = survivor.get("/api/v1/tasks?limit=500").getJsonArray("tasks").stream().map(t -> (JsonObject) t)
        .filter(t -> t.getString("uniqueKey", "").startsWith("schedule:heartbeat:")).toList();
      Instant lastSlot = Instant.parse(schedule.getString("lastRunAt"));
      long slots = Duration.between(firstSlot, lastSlot).toSeconds() + 1;
      assertThat(tasks.stream().map(t -> t.getString("uniqueKey")).distinct()).as("one task per slot").hasSize(tasks.size());
      assertThat(schedule.getLong("runs")).isEqualTo(tasks.size());
      assertThat(tasks.size() + schedule.getLong("missedRuns")).as("every slot fired once or was counted missed").isEqualTo(slots);
      assertThat(schedule.getLong("runs")).as("the survivors went on firing").isGreaterThan(runsAtKill + 3);
      assertThat(tasks.get(tasks.size() - 1).getString("uniqueKey")).isEqualTo("schedule:heartbeat:" + lastSlot);
    }
  }

  @Test
  void aClusterThatWasDownMakesOneTaskForTheSlotsItMissedAndCountsTheRest() throws Exception {
    try (LocalCluster cluster = new LocalCluster(3, "coordinator", SECRET, 5,
      Map.of("CONCLAVE_SWARM_JOB_INTERVAL_MS", "100", "CONCLAVE_SWARM_RATE_LIMITS", "false"))) {
      cluster.startAll();
      String token = cluster.adminToken();
      JsonObject made = new AdminHttp(cluster.httpPort(0), token).post("/api/v1/schedules", new JsonObject().put("name", "catchup")
        .put("every", "PT1S").put("task", new JsonObject().put("title", "tick").put("requiredSkills", new JsonArray().add("nobody-has-this"))));
      Instant firstSlot = Instant.parse(made.getString("nextRunAt"));

      Thread.sleep(4_000);
      for (int i = 0; i < cluster.size(); i++) {
        cluster.node(i).kill();
      }
      Instant down = Instant.now();
      Thread.sleep(8_000); // eight slots or more with no coordinator running
      cluster.start(1);
      Thread.sleep(3_000);

      AdminHttp back = new AdminHttp(cluster.httpPort(1), token);
      JsonObject schedule = back.get("/api/v1/schedules/catchup");
      List<Instant> fired = back.get("/api/v1/tasks?limit=500").getJsonArray("tasks").stream().map(t -> (JsonObject) t)
        .map(t -> t.getString("uniqueKey", "")).filter(k -> k.startsWith("schedule:catchup:"))
        .map(k -> Instant.parse(k.substring("schedule:catchup:".length()))).sorted().toList();
      Instant lastSlot = Instant.parse(schedule.getString("lastRunAt"));
      long slots = Duration.between(firstSlot, lastSlot).toSeconds() + 1;
      assertThat(fired).as("one task per slot").doesNotHaveDuplicates();
      assertThat(fired.size() + schedule.getLong("missedRuns")).as("every slot fired once or was counted missed").isEqualTo(slots);

      // the widest gap between fired slots is the downtime: one task after it, the slots inside it missed
      Instant before = fired.get(0);
      Instant after = fired.get(0);
      for (int i = 1; i < fired.size(); i++) {
        if (Duration.between(fired.get(i - 1), fired.get(i)).compareTo(Duration.between(before, after)) > 0) {
          before = fired.get(i - 1);
          after = fired.get(i);
        }
      }
      long skipped = Duration.between(before, after).toSeconds() - 1;
      assertThat(before).as("the last slot fired before the kill").isBefore(down);
      assertThat(skipped).as("slots with no task across the downtime").isGreaterThanOrEqualTo(7);
      assertThat(schedule.getLong("missedRuns")).as("the downtime's slots are counted missed").isGreaterThanOrEqualTo(skipped);
      assertThat(fired.stream().filter(slot -> slot.isAfter(down))).as("the node back goes on firing").hasSizeGreaterThan(1);
    }
  }
}
