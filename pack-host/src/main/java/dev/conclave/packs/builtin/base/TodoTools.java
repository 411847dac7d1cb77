package dev.conclave.packs.builtin.base;

import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.builtin.DefinedTool;
import dev.conclave.packs.builtin.JsonOutputs;
import dev.conclave.packs.builtin.ListLimit;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolDefinitions;
import dev.conclave.packs.builtin.ToolFailure;
import dev.conclave.packs.builtin.ToolInputs;
import dev.conclave.packs.store.TodoStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * {@code todo_add}, {@code todo_list}, {@code todo_update} and {@code todo_delete}: an agent's own
 * todo list. Another agent's todo, and an id that is not a UUID, give the same {@code todo not
 * found} as a missing todo, so nothing reveals that another agent's todo exists. An empty id is
 * {@code id is required}.
 */
final class TodoTools {

  static final String NOT_FOUND = "todo not found";

  private static final List<String> STATUSES = List.of("pending", "in_progress", "completed");
  private static final List<String> PRIORITIES = List.of("low", "medium", "high");

  private static final String ADD_SCHEMA = "{\"type\":\"object\",\"properties\":{\"description\":{\"type\":\"string\"},"
    + "\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"due_date\":{\"type\":\"string\",\"format\":\"date-time\"},"
    + "\"notes\":{\"type\":\"string\"}},\"required\":[\"description\"]}";
  private static final String LIST_SCHEMA = "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"string\","
    + "\"enum\":[\"pending\",\"in_progress\",\"completed\"]},\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]}}}";
  private static final String UPDATE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
    + "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"]},"
    + "\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"notes\":{\"type\":\"string\"},"
    + "\"due_date\":{\"type\":\"string\",\"format\":\"date-time\"}},\"required\":[\"id\"]}";
  private static final String DELETE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}";

  private final TodoStore store;
  private final Clock clock;

  TodoTools(TodoStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  List<BuiltinTool> tools() {
    return List.of(
      new DefinedTool(ToolDefinitions.of("todo_add", "Create a todo", ADD_SCHEMA, BasePack.CAPABILITY), this::add),
      new DefinedTool(ToolDefinitions.of("todo_list", "List todos", LIST_SCHEMA, BasePack.CAPABILITY), this::list),
      new DefinedTool(ToolDefinitions.of("todo_update", "Update a todo", UPDATE_SCHEMA, BasePack.CAPABILITY), this::update),
      new DefinedTool(ToolDefinitions.of("todo_delete", "Delete a todo", DELETE_SCHEMA, BasePack.CAPABILITY), this::delete));
  }

  private Future<String> add(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String description = ToolInputs.required(input, "description", ToolInputs.MAX_TEXT);
    String priority = priority(input);
    String notes = ToolInputs.optional(input, "notes", ToolInputs.MAX_TEXT);
    Instant due = ToolInputs.dateTime(ToolInputs.string(input, "due_date"), "invalid due_date").orElse(null);
    return store.add(agent, description, priority == null ? "medium" : priority, notes, due, now())
      .map(id -> JsonOutputs.status("id", id.toString(), "created"));
  }

  private Future<String> list(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String status = status(input);
    String priority = priority(input);
    ListLimit limit = ListLimit.UNBOUNDED;
    return store.list(agent, status, priority, limit.fetch())
      .map(todos -> JsonOutputs.list("todos", todos.stream().map(TodoTools::json).toList(), limit).encode());
  }

  private Future<String> update(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    UUID id = ToolInputs.id(input, "id", NOT_FOUND);
    TodoStore.Changes changes;
    try {
      String notes = ToolInputs.optional(input, "notes", ToolInputs.MAX_TEXT);
      Instant due = ToolInputs.dateTime(ToolInputs.string(input, "due_date"), "invalid due_date").orElse(null);
      changes = new TodoStore.Changes(status(input), priority(input), notes.isEmpty() ? null : notes, due);
    } catch (ToolFailure invalid) {
      // coven-gateway's wording for a bad update
      throw new ToolFailure("apply todo updates: " + invalid.getMessage());
    }
    return store.update(agent, id, changes, now()).map(updated -> found(updated, "updated"));
  }

  private Future<String> delete(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    UUID id = ToolInputs.id(input, "id", NOT_FOUND);
    return store.delete(agent, id).map(deleted -> found(deleted, "deleted"));
  }

  private static String found(boolean found, String status) {
    if (!found) {
      throw new ToolFailure(NOT_FOUND);
    }
    return new JsonObject().put("status", status).encode();
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /** The status field, or null when absent or empty. */
  private static String status(JsonObject input) {
    return oneOf(ToolInputs.string(input, "status"), STATUSES, "status", "must be pending, in_progress, or completed");
  }

  /** The priority field, or null when absent or empty. */
  private static String priority(JsonObject input) {
    return oneOf(ToolInputs.string(input, "priority"), PRIORITIES, "priority", "must be low, medium, or high");
  }

  private static String oneOf(String value, List<String> allowed, String field, String rule) {
    if (value.isEmpty()) {
      return null;
    }
    if (!allowed.contains(value)) {
      throw new ToolFailure("invalid " + field + " " + ToolInputs.quoted(value) + ": " + rule);
    }
    return value;
  }

  /** Coven-gateway's Todo shape. */
  static JsonObject json(TodoStore.Todo t) {
    return new JsonObject()
      .put("ID", t.id().toString())
      .put("AgentID", t.agentId())
      .put("Description", t.description())
      .put("Status", t.status())
      .put("Priority", t.priority())
      .put("Notes", t.notes())
      .put("DueDate", JsonOutputs.timeOrNull(t.dueDate()))
      .put("CreatedAt", JsonOutputs.time(t.createdAt()))
      .put("UpdatedAt", JsonOutputs.time(t.updatedAt()));
  }
}
