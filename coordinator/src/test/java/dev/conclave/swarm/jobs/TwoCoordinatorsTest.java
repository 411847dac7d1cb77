package dev.conclave.swarm.jobs;

import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.swarm.support.MutableClock;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two coordinator nodes on one database (and one file transport directory), running their
 * background jobs at the same time on the same clock: claims are exclusive across nodes, and every
 * job and every request file handles each item once (counted by the events both nodes publish).
 */
class TwoCoordinatorsTest {

  private static MutableClock clock;
  private static SwarmNode a;
  private static SwarmNode b;
  private static Path files;

  @BeforeAll
  static void start() throws IOException {
    clock = MutableClock.startingNow();
    files = Files.createTempDirectory("swarm-shared-files");
    Map<String, String> env = Map.of("CONCLAVE_SWARM_FILE_DIR", files.toString(), "CONCLAVE_SWARM_JOB_INTERVAL_MS", "20");
    a = SwarmNode.start(clock, TestDatabase.freshDatabase(), env);
    b = SwarmNode.start(clock, a.database(), env);
  }

  @AfterAll
  static void stop() {
    a.close();
    b.close();
    TestDatabase.deleteTree(files);
  }

  private static SwarmApi via(int i) {
    return i % 2 == 0 ? a.api() : b.api();
  }

  /** How often each entity had this event, over both nodes. */
  private static Map<String, Long> counts(String kind, String event, Set<String> ids) {
    return Stream.concat(a.events().of(kind, event, null).stream(), b.events().of(kind, event, null).stream())
      .map(e -> e.getString("id")).filter(ids::contains)
      .collect(Collectors.groupingBy(id -> id, Collectors.counting()));
  }

  private static void awaitOnceEach(String kind, String event, Set<String> ids) {
    Waits.until(() -> counts(kind, event, ids).size() == ids.size(), Duration.ofSeconds(30), kind + "." + event + " for all");
    // give a double-processing node time to show itself
    sleep(300);
    assertThat(counts(kind, event, ids).values()).as(kind + "." + event + " per item").containsOnly(1L);
  }

  @Test
  void claimsAreExclusiveAcrossNodes() throws Exception {
    int tasks = 2000;
    for (int from = 0; from < tasks; from += 1000) {
      JsonArray batch = new JsonArray();
      for (int i = from; i < from + 1000; i++) {
        batch.add(new JsonObject().put("id", "x" + i).put("title", "t").put("requiredSkills", new JsonArray().add("exclusive")));
      }
      assertThat(via(from / 1000).createTasks(batch).status()).isEqualTo(201);
    }
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      agents.add("ex-" + i);
      assertThat(via(i).register("ex-" + i, List.of("exclusive")).status()).isEqualTo(200);
    }
    Map<String, String> claimed = new ConcurrentHashMap<>();
    List<String> twice = java.util.Collections.synchronizedList(new ArrayList<>());

    boolean more = true;
    while (more) {
      List<Future<Reply>> round = new ArrayList<>();
      for (int i = 0; i < agents.size(); i++) {
        round.add(via(i).postAsync("/api/v1/tasks/claim", v1().put("agentId", agents.get(i))));
      }
      Future.join(round).await(30, TimeUnit.SECONDS);
      List<Future<Reply>> completes = new ArrayList<>();
      more = false;
      for (int i = 0; i < agents.size(); i++) {
        JsonObject body = round.get(i).result().json();
        if (body.getBoolean("success")) {
          more = true;
          String task = body.getJsonObject("task").getString("id");
          if (claimed.putIfAbsent(task, agents.get(i)) != null) {
            twice.add(task);
          }
          completes.add(via(i + 1).postAsync("/api/v1/tasks/" + task + "/complete", v1().put("agentId", agents.get(i))
            .put("result", SwarmApi.result("ok"))));
        }
      }
      Future.join(completes).await(30, TimeUnit.SECONDS);
    }

    assertThat(twice).isEmpty();
    assertThat(claimed).hasSize(tasks);
  }

  @Test
  void staleAgentsRetriesExpiredLeasesAndMessagesAreEachHandledOnce() {
    int n = 60;
    JsonArray batch = new JsonArray();
    Set<String> taskIds = new java.util.HashSet<>();
    Set<String> agentIds = new java.util.HashSet<>();
    Set<String> leases = new java.util.HashSet<>();
    for (int i = 0; i < n; i++) {
      batch.add(new JsonObject().put("id", "job" + i).put("title", "t").put("requiredSkills", new JsonArray().add("jobs")));
      taskIds.add("job" + i);
    }
    a.api().createTasks(batch);
    for (int i = 0; i < n; i++) {
      String agent = "stale-" + i;
      agentIds.add(agent);
      via(i).register(agent, List.of("jobs"));
      String task = via(i).claim(agent).json().getJsonObject("task").getString("id");
      assertThat(via(i).acquire(agent, task, "held/" + i, 3_600_000).json().getBoolean("success")).isTrue();
      leases.add("held/" + i);
    }

    clock.advance(Duration.ofMinutes(3));
    awaitOnceEach("agent", "offline", agentIds);
    awaitOnceEach("task", "failed", taskIds);
    awaitOnceEach("lease", "released", leases);
    for (String task : taskIds) {
      assertThat(a.api().task(task).getInteger("retryCount")).isEqualTo(1);
    }

    clock.advance(Duration.ofMinutes(2));
    awaitOnceEach("task", "retry_ready", taskIds);

    String holder = "holder";
    a.api().register(holder, List.of("jobs"));
    String task = a.api().claim(holder).json().getJsonObject("task").getString("id");
    Set<String> shortLeases = new java.util.HashSet<>();
    for (int i = 0; i < n; i++) {
      assertThat(via(i).acquire(holder, task, "short/" + i, 1000).json().getBoolean("success")).isTrue();
      shortLeases.add("short/" + i);
    }
    Set<String> messages = new java.util.HashSet<>();
    for (int i = 0; i < n; i++) {
      messages.add(via(i).post("/api/v1/messages", v1().put("agentId", holder).put("message", new JsonObject()
        .put("type", "custom").put("payload", i).put("expiresIn", 1000))).json().getString("messageId"));
    }
    clock.advance(Duration.ofSeconds(2));
    awaitOnceEach("lease", "expired", shortLeases);
    awaitOnceEach("message", "expired", messages);
  }

  @Test
  void eachRequestFileIsAnsweredByOneNode() throws Exception {
    a.api().register("mailer", List.of("files"));
    a.api().register("mailbox", List.of("files"));
    int n = 80;
    for (int i = 0; i < n; i++) {
      Path temp = files.resolve(".tmp-" + i);
      Files.writeString(temp, v1().put("operation", "SEND_MESSAGE").put("agentId", "mailer").put("message",
        new JsonObject().put("to", "mailbox").put("type", "custom").put("payload", i)).encode());
      Files.move(temp, files.resolve("requests").resolve("mail-" + i + ".json"), StandardCopyOption.ATOMIC_MOVE);
    }

    Waits.until(() -> countResponses() == n, Duration.ofSeconds(30), "all responses");
    Map<Integer, Integer> received = new HashMap<>();
    JsonArray got = a.api().get("/api/v1/messages?protocolVersion=1.0&limit=1000&agentId=mailbox").array("messages");
    got.forEach(m -> received.merge(((JsonObject) m).getInteger("payload"), 1, Integer::sum));
    assertThat(received).hasSize(n);
    assertThat(received.values()).containsOnly(1);
    Set<String> ids = got.stream().map(m -> ((JsonObject) m).getString("id")).collect(Collectors.toSet());
    awaitOnceEach("message", "sent", ids);
    assertThat(counts("message", "sent", ids).size()).isEqualTo(n);
    assertThat(a.events().of("message", "sent", null).size()).as("node a answered some").isGreaterThan(0);
    assertThat(b.events().of("message", "sent", null).size()).as("node b answered some").isGreaterThan(0);
  }

  private static long countResponses() {
    try (Stream<Path> list = Files.list(files.resolve("responses"))) {
      return list.filter(p -> p.getFileName().toString().matches("mail-\\d+-response\\.json")).count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
