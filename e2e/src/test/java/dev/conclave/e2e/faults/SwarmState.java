package dev.conclave.e2e.faults;

import dev.conclave.platform.config.PgUrl;
import io.vertx.core.json.JsonObject;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the coordinator committed for some tasks, read from PostgreSQL as plain records: the tasks
 * ({@code swarm.tasks}) and their history ({@code swarm.task_history}: every task event, and the
 * lease events naming the task, written in the transaction that made the change).
 */
public record SwarmState(List<Task> tasks, List<Event> events) {

  public record Task(String id, String status, Optional<String> assignedAgent, Optional<String> completedBy) {
  }

  /** One history row; {@code data}'s members as strings (e.g. agentId, expiresAt, previousAgent, reason). */
  public record Event(String taskId, long seq, String kind, String event, Instant at, Map<String, String> data) {
    public Event {
      data = Map.copyOf(data);
    }

    public String str(String key) {
      return data.getOrDefault(key, "");
    }
  }

  public SwarmState {
    tasks = List.copyOf(tasks);
    events = List.copyOf(events);
  }

  /** Reads the tasks with these ids or whose id starts with one of the prefixes, and their history. */
  public static SwarmState read(PgUrl db, Collection<String> ids, Collection<String> prefixes) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null))) {
      String which = "(id = ANY (?) OR id LIKE ANY (?))";
      List<Task> tasks = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT id, status, assigned_agent, completed_by FROM swarm.tasks WHERE " + which)) {
        bind(c, s, ids, prefixes);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            tasks.add(new Task(r.getString(1), r.getString(2), Optional.ofNullable(r.getString(3)), Optional.ofNullable(r.getString(4))));
          }
        }
      }
      List<Event> events = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT task_id, seq, kind, event, at, data::text FROM swarm.task_history WHERE task_id IN"
        + " (SELECT id FROM swarm.tasks WHERE " + which + ") ORDER BY task_id, seq")) {
        bind(c, s, ids, prefixes);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            Map<String, String> data = new HashMap<>();
            new JsonObject(r.getString(6)).forEach(m -> data.put(m.getKey(), String.valueOf(m.getValue())));
            events.add(new Event(r.getString(1), r.getLong(2), r.getString(3), r.getString(4), r.getTimestamp(5).toInstant(), data));
          }
        }
      }
      return new SwarmState(tasks, events);
    } catch (SQLException e) {
      throw new IllegalStateException("reading the coordinator's tables: " + e.getMessage(), e);
    }
  }

  private static void bind(Connection c, PreparedStatement s, Collection<String> ids, Collection<String> prefixes) throws SQLException {
    s.setArray(1, c.createArrayOf("text", ids.toArray()));
    s.setArray(2, c.createArrayOf("text", prefixes.stream().map(p -> p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%").toArray()));
  }
}
