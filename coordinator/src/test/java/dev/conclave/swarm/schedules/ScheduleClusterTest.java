package dev.conclave.swarm.schedules;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.swarm.support.MutableClock;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three coordinator nodes on one database, on one clock the test moves, all ticking every 20 ms: each
 * slot of a schedule makes exactly one task. Then the whole cluster stops, five slots pass, and one
 * node starts: the latest missed slot fires once, the four before it are counted in missedRuns.
 */
class ScheduleClusterTest {

  private static final Map<String, String> FAST = Map.of("CONCLAVE_SWARM_JOB_INTERVAL_MS", "20");

  @Test
  void threeNodesRacingFireEachSlotOnceAndOneNodeCatchesUpAfterTheClusterWasDown() throws InterruptedException {
    MutableClock clock = MutableClock.startingNow();
    PgUrl database = TestDatabase.freshDatabase();
    List<SwarmNode> nodes = new ArrayList<>();
    nodes.add(SwarmNode.start(clock, database, FAST));
    nodes.add(SwarmNode.start(clock, database, FAST));
    nodes.add(SwarmNode.start(clock, database, FAST));
    int slots = 10;
    Instant first;
    try {
      Reply made = nodes.get(1).api().post("/api/v1/schedules", new JsonObject().put("name", "race").put("every", "PT1M")
        .put("task", SchedulesTest.template("Raced")));
      assertThat(made.status()).as(made.toString()).isEqualTo(201);
      first = Instant.parse(made.json().getString("nextRunAt"));
      for (int slot = 1; slot <= slots; slot++) {
        Instant due = first.plus(Duration.ofMinutes(slot - 1));
        clock.advance(Duration.between(clock.instant(), due).plusMillis(100));
        int expected = slot;
        Waits.until(() -> runs(nodes.get(expected % 3)) == expected, Duration.ofSeconds(20), "run " + slot);
        Thread.sleep(100); // three nodes ticking 15 times more: a second firing of the slot would show
      }
      List<JsonObject> tasks = SchedulesTest.tasksOf(nodes.get(0).api(), "race");
      assertThat(tasks).hasSize(slots);
      for (int slot = 1; slot <= slots; slot++) {
        assertThat(tasks.get(slot - 1).getString("uniqueKey")).isEqualTo("schedule:race:" + first.plus(Duration.ofMinutes(slot - 1)));
      }
      JsonObject schedule = nodes.get(2).api().get("/api/v1/schedules/race").json();
      assertThat(schedule.getLong("runs")).isEqualTo(slots);
      assertThat(schedule.getLong("missedRuns")).isZero();
    } finally {
      nodes.forEach(SwarmNode::close);
    }

    // the whole cluster down while five slots pass
    Instant latest = first.plus(Duration.ofMinutes(slots + 4));
    clock.advance(Duration.between(clock.instant(), latest).plusSeconds(30));
    try (SwarmNode back = SwarmNode.start(clock, database, FAST)) {
      Waits.until(() -> runs(back) == slots + 1, Duration.ofSeconds(30), "the catch-up run");
      Thread.sleep(300);
      List<JsonObject> tasks = SchedulesTest.tasksOf(back.api(), "race");
      assertThat(tasks).as("one catch-up task").hasSize(slots + 1);
      assertThat(tasks.get(slots).getString("uniqueKey")).isEqualTo("schedule:race:" + latest);
      JsonObject schedule = back.api().get("/api/v1/schedules/race").json();
      assertThat(schedule.getLong("runs")).isEqualTo(slots + 1);
      assertThat(schedule.getLong("missedRuns")).isEqualTo(4);
      assertThat(Instant.parse(schedule.getString("nextRunAt"))).isEqualTo(latest.plus(Duration.ofMinutes(1)));
    }
  }

  private static long runs(SwarmNode node) {
    return node.api().get("/api/v1/schedules/race").json().getLong("runs", -1L);
  }
}
