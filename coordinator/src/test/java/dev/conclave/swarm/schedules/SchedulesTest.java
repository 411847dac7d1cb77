package dev.conclave.swarm.schedules;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schedules over the API on one node whose clock the test moves (the background jobs tick every
 * 50 ms and read that clock): create, list, read, delete, bad input, and a task per slot, once.
 */
class SchedulesTest {

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

  static JsonObject template(String title) {
    return new JsonObject().put("title", title).put("priority", "high").put("requiredSkills", new JsonArray().add("nobody-has-this"));
  }

  static Reply delete(SwarmApi api, String path) {
    return Await.await(api.send(HttpMethod.DELETE, path, null, Map.of()));
  }

  /** The tasks of a schedule (by their uniqueKey), in creation order. */
  static List<JsonObject> tasksOf(SwarmApi api, String name) {
    return api.get("/api/v1/tasks?limit=500").array("tasks").stream().map(t -> (JsonObject) t)
      .filter(t -> t.getString("uniqueKey", "").startsWith("schedule:" + name + ":")).toList();
  }

  @Test
  void createListReadAndDelete() {
    Reply made = api.post("/api/v1/schedules", new JsonObject().put("name", "nightly-report").put("cron", "0 2 * * *")
      .put("timezone", "Europe/Berlin").put("task", template("Nightly report")));
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    JsonObject schedule = made.json();
    assertThat(schedule.getString("cron")).isEqualTo("0 2 * * *");
    assertThat(schedule.getString("timezone")).isEqualTo("Europe/Berlin");
    assertThat(schedule.getJsonObject("task").getString("title")).isEqualTo("Nightly report");
    assertThat(schedule.getLong("runs")).isZero();
    assertThat(schedule.getLong("missedRuns")).isZero();
    assertThat(schedule.containsKey("lastRunAt")).isFalse();
    Instant next = Instant.parse(schedule.getString("nextRunAt"));
    assertThat(next).isAfter(swarm.clock().instant()).isBefore(swarm.clock().instant().plus(Duration.ofHours(25)));
    assertThat(next.atZone(java.time.ZoneId.of("Europe/Berlin")).getHour()).isEqualTo(2);

    Reply again = api.post("/api/v1/schedules", new JsonObject().put("name", "nightly-report").put("every", "PT1H")
      .put("task", template("other")));
    assertThat(again.status()).as(again.toString()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("schedule_already_exists");

    assertThat(api.get("/api/v1/schedules").array("schedules").stream().map(s -> ((JsonObject) s).getString("name")))
      .contains("nightly-report");
    assertThat(api.get("/api/v1/schedules/nightly-report").json()).isEqualTo(schedule);

    Reply gone = delete(api, "/api/v1/schedules/nightly-report");
    assertThat(gone.status()).as(gone.toString()).isEqualTo(200);
    assertThat(api.get("/api/v1/schedules/nightly-report").code()).isEqualTo("schedule_not_found");
    assertThat(delete(api, "/api/v1/schedules/nightly-report").status()).isEqualTo(404);
  }

  @Test
  void badInputIsA400NamingTheField() {
    JsonObject task = template("t");
    assertBad(new JsonObject().put("cron", "* * * * *").put("task", task), "name");
    assertBad(new JsonObject().put("name", "b1").put("cron", "99 * * * *").put("task", task), "cron");
    assertBad(new JsonObject().put("name", "b2").put("every", "one hour").put("task", task), "every");
    assertBad(new JsonObject().put("name", "b3").put("every", "PT0.2S").put("task", task), "every");
    assertBad(new JsonObject().put("name", "b4").put("cron", "* * * * *").put("timezone", "Europe/Atlantis").put("task", task), "timezone");
    assertBad(new JsonObject().put("name", "b5").put("cron", "* * * * *").put("every", "PT1M").put("task", task), "cron");
    assertBad(new JsonObject().put("name", "b6").put("task", task), "cron");
    assertBad(new JsonObject().put("name", "b7").put("every", "PT1M"), "task");
    assertBad(new JsonObject().put("name", "b8").put("every", "PT1M").put("task", new JsonObject().put("priority", "high")), "task.title");
    assertBad(new JsonObject().put("name", "b9").put("every", "PT1M").put("task", template("t").put("priority", "urgent")), "task.priority");
    assertBad(new JsonObject().put("name", "b10").put("every", "PT1M").put("task", template("t").put("id", "fixed")), "task.id");
    assertBad(new JsonObject().put("name", "b11").put("every", "PT1M").put("task", template("t").put("uniqueKey", "k")), "task.uniqueKey");
    assertThat(api.get("/api/v1/schedules").array("schedules").stream().map(s -> ((JsonObject) s).getString("name")))
      .noneMatch(n -> n.matches("b\\d+"));
  }

  private static void assertBad(JsonObject body, String field) {
    Reply reply = api.post("/api/v1/schedules", body);
    assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
    assertThat(reply.json().getString("field")).as(reply.toString()).isEqualTo(field);
  }

  @Test
  void aScheduleMakesOneTaskPerSlot() throws InterruptedException {
    Reply made = api.post("/api/v1/schedules", new JsonObject().put("name", "every-minute").put("every", "PT1M")
      .put("task", template("Minutely")));
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    Instant first = Instant.parse(made.json().getString("nextRunAt"));
    assertThat(tasksOf(api, "every-minute")).isEmpty();

    for (int slot = 1; slot <= 3; slot++) {
      Instant due = first.plus(Duration.ofMinutes(slot - 1));
      swarm.clock().advance(Duration.between(swarm.clock().instant(), due).plusMillis(200));
      int expected = slot;
      Waits.until(() -> tasksOf(api, "every-minute").size() == expected, Duration.ofSeconds(20), "the task of slot " + slot);
      Thread.sleep(300); // ticks go on: a second task for the slot would show now
      List<JsonObject> tasks = tasksOf(api, "every-minute");
      assertThat(tasks).hasSize(slot);
      JsonObject task = tasks.get(slot - 1);
      assertThat(task.getString("uniqueKey")).isEqualTo("schedule:every-minute:" + due);
      assertThat(task.getString("title")).isEqualTo("Minutely");
      assertThat(task.getString("priority")).isEqualTo("high");
      JsonObject schedule = api.get("/api/v1/schedules/every-minute").json();
      assertThat(schedule.getLong("runs")).isEqualTo(slot);
      assertThat(schedule.getLong("missedRuns")).isZero();
      assertThat(schedule.getString("lastRunAt")).isEqualTo(due.toString().replace("Z", ".000Z"));
      assertThat(schedule.getString("lastTaskId")).isEqualTo(task.getString("id"));
      assertThat(Instant.parse(schedule.getString("nextRunAt"))).isEqualTo(due.plus(Duration.ofMinutes(1)));
    }

    assertThat(delete(api, "/api/v1/schedules/every-minute").status()).isEqualTo(200);
    swarm.clock().advance(Duration.ofMinutes(5));
    Thread.sleep(300);
    assertThat(tasksOf(api, "every-minute")).as("a deleted schedule makes no task").hasSize(3);
  }

  @Test
  void aSlotWhoseTaskCannotBeMadeIsSkippedAndSaysWhy() throws Exception {
    Reply made = api.post("/api/v1/schedules", new JsonObject().put("name", "broken").put("every", "PT1M")
      .put("task", template("Broken")));
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    Instant first = Instant.parse(made.json().getString("nextRunAt"));
    // the task rules changed under the template (here: by hand), so its task cannot be made any more
    try (java.sql.Connection c = swarm.jdbc(); java.sql.Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE swarm.schedules SET task = task || '{\"priority\": \"urgent\"}' WHERE name = 'broken'");
    }
    swarm.clock().advance(Duration.between(swarm.clock().instant(), first).plusMillis(200));
    Waits.until(() -> api.get("/api/v1/schedules/broken").json().getLong("missedRuns") == 1, Duration.ofSeconds(20), "the slot skipped");
    JsonObject schedule = api.get("/api/v1/schedules/broken").json();
    assertThat(schedule.getString("lastError")).contains("priority");
    assertThat(schedule.getLong("runs")).isZero();
    assertThat(Instant.parse(schedule.getString("nextRunAt"))).isEqualTo(first.plus(Duration.ofMinutes(1)));
    assertThat(tasksOf(api, "broken")).isEmpty();
    assertThat(delete(api, "/api/v1/schedules/broken").status()).isEqualTo(200);
  }
}
