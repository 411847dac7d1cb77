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
 * fired made exactly one task or was counted missed, never two, and the survivors go on firing.
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
}
