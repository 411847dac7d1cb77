package dev.conclave.swarm.store;

import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * swarm.dispatch_batch runs an agent's lone plain CLAIM or plain COMPLETE set-based (claim_batch,
 * complete_batch, with all of the batch's others) and every other request alone (a single CLAIM or
 * COMPLETE through the same functions, as a batch of one), and promises the outcome of running the requests one
 * by one through swarm.dispatch in the order it reports: every request once, one agent's in the order
 * given, the other requests first. This test holds it to that promise on random batches: agents with
 * different skills (some offline, not registered or not the caller's), ready tasks with required
 * skills and agents that failed them before, claimed tasks with leases and dependents, and requests
 * of every kind the set-based paths take or leave (filters, quality metrics, repeated and foreign
 * COMPLETEs, two requests of one agent). Each scenario runs both ways from the same savepoint, and
 * the results, events, task history and rows must be the same.
 */
class BatchEquivalenceTest {

  private static final List<String> SKILLS = List.of("x", "y", "z");
  private static final List<String> PRIORITIES = List.of("critical", "high", "medium", "low");

  private static SwarmNode swarm;
  private static Connection db;

  @BeforeAll
  static void start() throws SQLException {
    swarm = SwarmNode.start();
    db = swarm.jdbc();
    db.setAutoCommit(false);
  }

  @AfterAll
  static void stop() throws SQLException {
    db.close();
    swarm.close();
  }

  /** One request of a batch, and whether the set-based paths may take it (as dispatch_batch decides). */
  private record Item(JsonObject item, String agentId, boolean plainClaim, boolean plainComplete) {
  }

  @Test
  void aBatchEqualsItsRequestsRunOneByOneInTheOrderItReports() throws SQLException {
    Random random = new Random(20261202);
    for (int scenario = 0; scenario < 60; scenario++) {
      runScenario(random, "s" + scenario, scenario % 2 == 0);
    }
  }

  private void runScenario(Random random, String prefix, boolean capture) throws SQLException {
    Instant now = Instant.parse("2026-12-02T12:00:00Z").plus(random.nextInt(1000), ChronoUnit.MINUTES);
    Instant before = now.minus(1, ChronoUnit.MINUTES);
    UUID owner = UUID.randomUUID();
    UUID stranger = UUID.randomUUID();

    // agents with random skills; some owned by a principal, one offline
    List<String> agents = new ArrayList<>();
    int agentCount = 4 + random.nextInt(8);
    for (int i = 0; i < agentCount; i++) {
      String id = prefix + "-a" + i;
      agents.add(id);
      boolean owned = random.nextInt(4) == 0;
      dispatch(v1().put("operation", "REGISTER").put("agent", SwarmApi.agentSpec(id, pick(random, SKILLS))), before,
        owned ? owner : null, new JsonObject());
    }
    exec("UPDATE swarm.agents SET status = 'offline', offline_at = ? WHERE id = ?", before, agents.get(random.nextInt(agentCount)));

    // ready tasks, tasks that depend on them, some already failed by agents, some claimed with leases
    List<String> tasks = new ArrayList<>();
    JsonArray base = new JsonArray();
    int taskCount = 4 + random.nextInt(14);
    for (int i = 0; i < taskCount; i++) {
      String id = prefix + "-t" + i;
      tasks.add(id);
      base.add(new JsonObject().put("id", id).put("title", "task " + i + (i % 3 == 0 ? " parser" : " docs"))
        .put("priority", PRIORITIES.get(random.nextInt(4))).put("requiredSkills", new JsonArray(pick(random, SKILLS))));
    }
    exec("SELECT swarm.create_tasks(?::jsonb, ?)", base.encode(), before.minusSeconds(30));
    JsonArray dependents = new JsonArray();
    for (int i = 0; i < 1 + random.nextInt(4); i++) {
      dependents.add(new JsonObject().put("id", prefix + "-d" + i).put("title", "dependent " + i)
        .put("priority", PRIORITIES.get(random.nextInt(4)))
        .put("dependencies", new JsonArray(pickSome(random, tasks, 1 + random.nextInt(2)))));
    }
    exec("SELECT swarm.create_tasks(?::jsonb, ?)", dependents.encode(), before.minusSeconds(20));
    for (String task : tasks) {
      if (random.nextInt(4) == 0) {
        exec("UPDATE swarm.tasks SET previous_agents = ?::text[] WHERE id = ?",
          "{" + String.join(",", pickSome(random, agents, 1 + random.nextInt(2))) + "}", task);
      }
    }
    Map<String, String> claimedBy = new HashMap<>();
    for (String agent : agents) {
      String task = tasks.get(random.nextInt(taskCount));
      if (random.nextInt(3) > 0 && !claimedBy.containsKey(task)) {
        claimedBy.put(task, agent);
        exec("UPDATE swarm.tasks SET status = 'claimed', assigned_agent = ?, claimed_at = ? WHERE id = ?", agent, before, task);
        exec("UPDATE swarm.agents SET status = CASE WHEN status = 'offline' THEN status ELSE 'busy' END, current_task = ? "
          + "WHERE id = ?", task, agent);
        if (random.nextBoolean()) {
          exec("INSERT INTO swarm.leases (file_path, agent_id, task_id, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            "src/" + task + ".ts", agent, task, before, now.plus(10, ChronoUnit.MINUTES));
        }
      }
    }

    List<Item> items = batch(random, prefix, agents, tasks, claimedBy, owner, stranger);
    long seqBefore = queryLong("SELECT coalesce(max(seq), 0) FROM swarm.events");
    Savepoint savepoint = db.setSavepoint();

    JsonArray requests = new JsonArray();
    items.forEach(i -> requests.add(i.item()));
    JsonObject batch;
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.dispatch_batch(?::jsonb, ?, ?)")) {
      st.setString(1, requests.encode());
      st.setTimestamp(2, Timestamp.from(now));
      st.setBoolean(3, capture);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        batch = new JsonObject(rs.getString(1));
      }
    }
    List<String> batchEvents = capture
      ? events("SELECT jsonb_build_object('kind', e ->> 'kind', 'event', e ->> 'event', 'id', e ->> 'id', 'data', e -> 'data') "
        + "FROM jsonb_array_elements(?::jsonb) e", batch.getJsonArray("events").encode())
      : events("SELECT jsonb_build_object('kind', kind, 'event', event, 'id', entity_id, 'data', data) "
        + "FROM swarm.events WHERE seq > ?", seqBefore);
    List<String> batchState = state(seqBefore);
    db.rollback(savepoint);

    // the order the batch reports: every request once, an agent's in the order given, the others first
    String where = prefix + " (capture " + capture + ") " + requests.encode();
    List<Integer> order = new ArrayList<>();
    batch.getJsonArray("order").forEach(o -> order.add(((Number) o).intValue() - 1));
    assertThat(order).as("order of %s", where).containsExactlyInAnyOrderElementsOf(
      java.util.stream.IntStream.range(0, items.size()).boxed().toList());
    Map<String, Integer> lastOfAgent = new HashMap<>();
    int others = 0;
    for (int position = 0; position < order.size(); position++) {
      Item item = items.get(order.get(position));
      Integer last = lastOfAgent.put(item.agentId(), order.get(position));
      assertThat(last == null || last < order.get(position)).as("%s keeps the order of %s's requests", where, item.agentId()).isTrue();
      if (!item.plainClaim() && !item.plainComplete()) {
        assertThat(position).as("the other requests come first in %s", where).isEqualTo(others++);
      }
    }

    // the same requests one by one, in that order
    for (int i : order) {
      Item item = items.get(i);
      String principal = item.item().getString("principal");
      JsonObject expected = dispatch(item.item().getJsonObject("request"), now,
        principal == null ? null : UUID.fromString(principal), item.item().getJsonObject("options"));
      assertThat(batch.getJsonArray("results").getJsonObject(i)).as("result %d of %s", i, where).isEqualTo(expected);
    }
    assertThat(batchEvents).as("events of %s", where).isEqualTo(events(
      "SELECT jsonb_build_object('kind', kind, 'event', event, 'id', entity_id, 'data', data) FROM swarm.events WHERE seq > ?",
      seqBefore));
    assertThat(batchState).as("rows after %s", where).isEqualTo(state(seqBefore));
    db.rollback();
  }

  /** A random batch: up to two requests per agent, of every kind, and a CLAIM of an agent never registered. */
  private static List<Item> batch(Random random, String prefix, List<String> agents, List<String> tasks,
                                  Map<String, String> claimedBy, UUID owner, UUID stranger) {
    List<JsonObject> requests = new ArrayList<>();
    List<String> senders = new ArrayList<>();
    for (String agent : agents) {
      int count = random.nextInt(10) < 7 ? 1 : random.nextInt(3);
      String own = claimedBy.entrySet().stream().filter(e -> e.getValue().equals(agent)).map(Map.Entry::getKey).findFirst().orElse(null);
      for (int n = 0; n < count; n++) {
        int kind = random.nextInt(10);
        JsonObject request;
        if (kind < 4) {
          request = v1().put("operation", "CLAIM").put("agentId", agent);
        } else if (kind == 4) {
          request = v1().put("operation", "CLAIM").put("agentId", agent)
            .put("filter", new JsonObject().put("priorities", new JsonArray().add("high").add("medium")));
        } else if (kind < 8) {
          String task = own != null && kind < 7 ? own : tasks.get(random.nextInt(tasks.size()));
          request = v1().put("operation", "COMPLETE").put("agentId", agent).put("taskId", task)
            .put("result", random.nextBoolean() ? SwarmApi.result("done") : SwarmApi.result("done", "the parser needs care " + agent));
        } else if (kind == 8) {
          request = v1().put("operation", "COMPLETE").put("agentId", agent).put("taskId", own != null ? own : tasks.get(0))
            .put("result", SwarmApi.result("measured")).put("qualityMetrics", new JsonObject().put("testsRan", 3)
              .put("testsPassed", 3).put("lintErrors", 0).put("typeErrors", 0).put("buildSuccess", true));
        } else {
          request = v1().put("operation", "HEARTBEAT").put("agentId", agent).put("status", "idle");
        }
        requests.add(request);
        senders.add(agent);
      }
    }
    requests.add(v1().put("operation", "CLAIM").put("agentId", prefix + "-never"));
    senders.add(prefix + "-never");
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < requests.size(); i++) {
      order.add(i);
    }
    Collections.shuffle(order, random);

    Map<String, Integer> perAgent = new HashMap<>();
    senders.forEach(s -> perAgent.merge(s, 1, Integer::sum));
    List<Item> items = new ArrayList<>();
    for (int i : order) {
      JsonObject request = requests.get(i);
      String agent = senders.get(i);
      // most requests come from a trusted transport; some from the owner, some from another principal
      int who = random.nextInt(8);
      String principal = who == 0 ? owner.toString() : who == 1 ? stranger.toString() : null;
      JsonObject item = new JsonObject().put("request", request).put("principal", principal)
        .put("options", new JsonObject().put("admin", false));
      boolean alone = perAgent.get(agent) == 1;
      String operation = request.getString("operation");
      items.add(new Item(item, agent,
        alone && operation.equals("CLAIM") && !request.containsKey("filter"),
        alone && operation.equals("COMPLETE") && !request.containsKey("qualityMetrics")));
    }
    return items;
  }

  private static List<String> state(long seqBefore) throws SQLException {
    List<String> rows = new ArrayList<>();
    rows.addAll(strings("SELECT concat_ws('|', id, status, assigned_agent, unmet_deps, previous_agents, claimed_at, completed_by, "
      + "completed_at, result, quality, updated_at) FROM swarm.tasks ORDER BY id"));
    rows.addAll(strings("SELECT concat_ws('|', id, status, current_task, tasks_completed, tasks_failed, last_heartbeat) "
      + "FROM swarm.agents ORDER BY id"));
    rows.addAll(strings("SELECT concat_ws('|', file_path, agent_id, task_id) FROM swarm.leases ORDER BY file_path"));
    rows.addAll(strings("SELECT concat_ws('|', task_id, agent_id, content) FROM swarm.learnings ORDER BY 1"));
    rows.addAll(strings("SELECT concat_ws('|', task_id, agent_id, gate_passed) FROM swarm.quality_snapshots ORDER BY 1"));
    rows.addAll(events("SELECT jsonb_build_object('task', task_id, 'kind', kind, 'event', event, 'data', data) "
      + "FROM swarm.task_history WHERE seq > ?", seqBefore));
    return rows;
  }

  private static JsonObject dispatch(JsonObject request, Instant now, UUID principal, JsonObject options) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.dispatch(?::jsonb, ?, ?, ?::jsonb)")) {
      st.setString(1, request.encode());
      st.setTimestamp(2, Timestamp.from(now));
      st.setObject(3, principal);
      st.setString(4, options.encode());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new JsonObject(rs.getString(1));
      }
    }
  }

  /** The rows of a query giving one JSON value each, sorted: the same events in any order compare equal. */
  private static List<String> events(String sql, Object parameter) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement st = db.prepareStatement(sql)) {
      st.setObject(1, parameter);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  private static List<String> strings(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static long queryLong(String sql) throws SQLException {
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(String sql, Object... parameters) throws SQLException {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        Object p = parameters[i];
        st.setObject(i + 1, p instanceof Instant instant ? Timestamp.from(instant) : p);
      }
      st.execute();
    }
  }

  private static List<String> pick(Random random, List<String> from) {
    List<String> out = new ArrayList<>();
    for (String s : from) {
      if (random.nextInt(3) == 0) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<String> pickSome(Random random, List<String> from, int count) {
    List<String> copy = new ArrayList<>(from);
    Collections.shuffle(copy, random);
    return copy.subList(0, Math.min(count, copy.size()));
  }
}
