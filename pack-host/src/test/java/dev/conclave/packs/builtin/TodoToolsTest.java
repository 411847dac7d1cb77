package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.base.BasePack;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code todo_add}, {@code todo_list}, {@code todo_update} and {@code todo_delete} against PostgreSQL. */
class TodoToolsTest {

  private static PacksFixture db;
  private static BuiltinPack base;

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
    base = BasePack.create(db.pool, db.clock);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private String add(ToolCaller agent, JsonObject input) {
    JsonObject out = db.ok(base, "todo_add", agent, input);
    assertThat(out.fieldNames()).containsExactly("id", "status");
    assertThat(out.getString("status")).isEqualTo("created");
    return out.getString("id");
  }

  private List<JsonObject> list(ToolCaller agent, JsonObject input) {
    JsonObject out = db.ok(base, "todo_list", agent, input);
    assertThat(out.getInteger("count")).isEqualTo(out.getJsonArray("todos").size());
    return out.getJsonArray("todos").stream().map(JsonObject.class::cast).toList();
  }

  private static List<String> descriptions(List<JsonObject> todos) {
    return todos.stream().map(t -> t.getString("Description")).toList();
  }

  @Test
  void aTodoIsCreatedWithAllFieldsAndListedInCovenShape() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    db.clock.set(Instant.parse("2026-01-28T10:00:00.5Z"));
    String id = add(agent, JsonObject.of("description", "ship it", "priority", "high", "due_date", "2026-02-01T09:00:00+02:00",
      "notes", "after review"));
    JsonObject todo = list(agent, new JsonObject()).get(0);
    assertThat(todo.fieldNames()).containsExactly("ID", "AgentID", "Description", "Status", "Priority", "Notes", "DueDate",
      "CreatedAt", "UpdatedAt");
    assertThat(todo).isEqualTo(new JsonObject().put("ID", id).put("AgentID", agent.agentId()).put("Description", "ship it")
      .put("Status", "pending").put("Priority", "high").put("Notes", "after review").put("DueDate", "2026-02-01T07:00:00Z")
      .put("CreatedAt", "2026-01-28T10:00:00.500Z").put("UpdatedAt", "2026-01-28T10:00:00.500Z"));
  }

  @Test
  void defaultsArePendingMediumNoNotesNoDueDate() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    add(agent, JsonObject.of("description", "plain"));
    add(agent, JsonObject.of("description", "empty strings", "priority", "", "due_date", "", "notes", ""));
    for (JsonObject todo : list(agent, new JsonObject())) {
      assertThat(todo.getString("Status")).isEqualTo("pending");
      assertThat(todo.getString("Priority")).isEqualTo("medium");
      assertThat(todo.getString("Notes")).isEmpty();
      assertThat(todo.containsKey("DueDate")).isTrue();
      assertThat(todo.getValue("DueDate")).isNull();
    }
  }

  @Test
  void addChecksItsInput() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    assertThat(db.fails(base, "todo_add", agent, new JsonObject())).isEqualTo("description is required");
    assertThat(db.fails(base, "todo_add", agent, JsonObject.of("description", ""))).isEqualTo("description is required");
    assertThat(db.fails(base, "todo_add", agent, JsonObject.of("description", "d", "priority", "urgent")))
      .isEqualTo("invalid priority \"urgent\": must be low, medium, or high");
    assertThat(db.fails(base, "todo_add", agent, JsonObject.of("description", "d", "due_date", "next week")))
      .isEqualTo("invalid due_date: \"next week\" is not an RFC 3339 date-time such as 2026-01-28T10:00:00Z");
    assertThat(db.fails(base, "todo_add", agent, JsonObject.of("description", "d", "notes", "n".repeat(65_537))))
      .isEqualTo("notes is too long: 65537 characters, at most 65536");
    assertThat(list(agent, new JsonObject())).isEmpty();
  }

  @Test
  void listIsNewestFirstFiltersAndChecksFilters() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    assertThat(db.ok(base, "todo_list", agent, new JsonObject()).encode()).isEqualTo("{\"count\":0,\"todos\":[]}");
    String low = add(agent, JsonObject.of("description", "low one", "priority", "low"));
    db.clock.advance(Duration.ofSeconds(1));
    add(agent, JsonObject.of("description", "high one", "priority", "high"));
    add(agent, JsonObject.of("description", "medium one, same millisecond"));
    db.ok(base, "todo_update", agent, JsonObject.of("id", low, "status", "completed"));

    assertThat(descriptions(list(agent, new JsonObject()))).containsExactly("medium one, same millisecond", "high one", "low one");
    assertThat(descriptions(list(agent, JsonObject.of("status", "pending")))).containsExactly("medium one, same millisecond", "high one");
    assertThat(descriptions(list(agent, JsonObject.of("status", "completed")))).containsExactly("low one");
    assertThat(descriptions(list(agent, JsonObject.of("priority", "high")))).containsExactly("high one");
    assertThat(descriptions(list(agent, JsonObject.of("status", "pending", "priority", "low")))).isEmpty();
    assertThat(db.fails(base, "todo_list", agent, JsonObject.of("status", "done")))
      .isEqualTo("invalid status \"done\": must be pending, in_progress, or completed");
    assertThat(db.fails(base, "todo_list", agent, JsonObject.of("priority", "HIGH")))
      .isEqualTo("invalid priority \"HIGH\": must be low, medium, or high");
  }

  @Test
  void listReturnsAtMost500AndSaysWhenItLeftSomeOut() {
    ToolCaller agent = PacksFixture.newAgent("busy");
    db.sql("INSERT INTO packs.todos (id, agent_id, description, created_at, updated_at) SELECT gen_random_uuid(), '" + agent.agentId()
      + "', 'todo ' || g, timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second', now() FROM generate_series(1, 501) g");
    JsonObject out = db.ok(base, "todo_list", agent, new JsonObject());
    assertThat(out.getInteger("count")).isEqualTo(500);
    assertThat(out.getBoolean("truncated")).isTrue();
    assertThat(out.getJsonArray("todos").getJsonObject(0).getString("Description")).isEqualTo("todo 501");
    assertThat(db.ok(base, "todo_list", agent, JsonObject.of("status", "completed")).containsKey("truncated")).isFalse();
  }

  @Test
  void updateChangesOnlyTheGivenFields() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    db.clock.set(Instant.parse("2026-04-01T12:00:00Z"));
    String id = add(agent, JsonObject.of("description", "write docs", "notes", "draft", "due_date", "2026-04-10T00:00:00Z"));
    db.clock.set(Instant.parse("2026-04-02T12:00:00Z"));

    JsonObject out = db.ok(base, "todo_update", agent, JsonObject.of("id", id, "status", "in_progress", "priority", "low"));
    assertThat(out.encode()).isEqualTo("{\"status\":\"updated\"}");
    JsonObject todo = list(agent, new JsonObject()).get(0);
    assertThat(todo.getString("Status")).isEqualTo("in_progress");
    assertThat(todo.getString("Priority")).isEqualTo("low");
    assertThat(todo.getString("Notes")).isEqualTo("draft");
    assertThat(todo.getString("DueDate")).isEqualTo("2026-04-10T00:00:00Z");
    assertThat(todo.getString("CreatedAt")).isEqualTo("2026-04-01T12:00:00Z");
    assertThat(todo.getString("UpdatedAt")).isEqualTo("2026-04-02T12:00:00Z");

    db.ok(base, "todo_update", agent, JsonObject.of("id", id, "notes", "final", "due_date", "2026-04-20T08:30:00Z",
      "status", "", "priority", ""));
    todo = list(agent, new JsonObject()).get(0);
    assertThat(todo.getString("Notes")).isEqualTo("final");
    assertThat(todo.getString("DueDate")).isEqualTo("2026-04-20T08:30:00Z");
    assertThat(todo.getString("Status")).as("empty means unchanged").isEqualTo("in_progress");
    assertThat(todo.getString("Priority")).isEqualTo("low");
    assertThat(todo.getString("Description")).isEqualTo("write docs");
  }

  @Test
  void updateChecksItsInput() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    String id = add(agent, JsonObject.of("description", "d"));
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", id, "status", "done")))
      .isEqualTo("apply todo updates: invalid status \"done\": must be pending, in_progress, or completed");
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", id, "priority", "urgent")))
      .isEqualTo("apply todo updates: invalid priority \"urgent\": must be low, medium, or high");
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", id, "due_date", "soon")))
      .isEqualTo("apply todo updates: invalid due_date: \"soon\" is not an RFC 3339 date-time such as 2026-01-28T10:00:00Z");
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", "", "status", "completed"))).isEqualTo("id is required");
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", "42", "status", "completed"))).isEqualTo("todo not found");
    assertThat(db.fails(base, "todo_update", agent, JsonObject.of("id", UUID.randomUUID().toString(), "status", "completed")))
      .isEqualTo("todo not found");
    assertThat(list(agent, new JsonObject()).get(0).getString("Status")).isEqualTo("pending");
  }

  @Test
  void deleteRemovesTheTodoOnce() {
    ToolCaller agent = PacksFixture.newAgent("worker");
    String id = add(agent, JsonObject.of("description", "temporary"));
    assertThat(db.ok(base, "todo_delete", agent, JsonObject.of("id", id)).encode()).isEqualTo("{\"status\":\"deleted\"}");
    assertThat(list(agent, new JsonObject())).isEmpty();
    assertThat(db.fails(base, "todo_delete", agent, JsonObject.of("id", id))).isEqualTo("todo not found");
    assertThat(db.fails(base, "todo_delete", agent, JsonObject.of("id", "not-a-uuid"))).isEqualTo("todo not found");
    assertThat(db.fails(base, "todo_delete", agent, JsonObject.of("id", ""))).isEqualTo("id is required");
  }

  @Test
  void anotherAgentsTodoIsInvisibleAndUntouchable() {
    ToolCaller a = PacksFixture.newAgent("a");
    ToolCaller b = PacksFixture.newAgent("b");
    String id = add(a, JsonObject.of("description", "a's private todo"));
    assertThat(list(b, new JsonObject())).isEmpty();
    assertThat(db.fails(base, "todo_update", b, JsonObject.of("id", id, "status", "completed", "notes", "hijacked")))
      .as("the same error as a missing todo").isEqualTo("todo not found");
    assertThat(db.fails(base, "todo_delete", b, JsonObject.of("id", id))).isEqualTo("todo not found");
    JsonObject todo = list(a, new JsonObject()).get(0);
    assertThat(todo.getString("Status")).isEqualTo("pending");
    assertThat(todo.getString("Notes")).isEmpty();
  }
}
