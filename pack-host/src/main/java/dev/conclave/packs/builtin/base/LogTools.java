package dev.conclave.packs.builtin.base;

import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.builtin.DefinedTool;
import dev.conclave.packs.builtin.JsonOutputs;
import dev.conclave.packs.builtin.ListLimit;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolDefinitions;
import dev.conclave.packs.builtin.ToolInputs;
import dev.conclave.packs.store.LogStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** {@code log_entry} and {@code log_search}: an agent's own activity log. */
final class LogTools {

  static final int SEARCH_DEFAULT_LIMIT = 50;

  private static final String ENTRY_SCHEMA = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
    + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"message\"]}";
  private static final String SEARCH_SCHEMA = "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},"
    + "\"since\":{\"type\":\"string\",\"format\":\"date-time\"},\"limit\":{\"type\":\"integer\"}}}";

  private final LogStore store;
  private final Clock clock;

  LogTools(LogStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  List<BuiltinTool> tools() {
    return List.of(
      new DefinedTool(ToolDefinitions.of("log_entry", "Log an activity or event", ENTRY_SCHEMA, BasePack.CAPABILITY), this::entry),
      new DefinedTool(ToolDefinitions.of("log_search", "Search past log entries", SEARCH_SCHEMA, BasePack.CAPABILITY), this::search));
  }

  private Future<String> entry(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String message = ToolInputs.required(input, "message", ToolInputs.MAX_TEXT);
    List<String> tags = ToolInputs.tags(input, "tags");
    return store.add(agent, message, tags, clock.instant().truncatedTo(ChronoUnit.MILLIS))
      .map(id -> JsonOutputs.status("id", id.toString(), "logged"));
  }

  private Future<String> search(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String query = ToolInputs.optional(input, "query", ToolInputs.MAX_TEXT);
    Instant since = ToolInputs.dateTime(ToolInputs.string(input, "since"), "invalid since date").orElse(null);
    ListLimit limit = ToolInputs.limit(input, "limit", SEARCH_DEFAULT_LIMIT);
    return store.search(agent, query.isEmpty() ? null : query, since, limit.fetch())
      .map(entries -> JsonOutputs.list("entries", entries.stream().map(LogTools::json).toList(), limit).encode());
  }

  /** Coven-gateway's LogEntry shape. */
  static JsonObject json(LogStore.Entry e) {
    return new JsonObject()
      .put("ID", e.id().toString())
      .put("AgentID", e.agentId())
      .put("Message", e.message())
      .put("Tags", new JsonArray(new ArrayList<>(e.tags())))
      .put("CreatedAt", JsonOutputs.time(e.createdAt()));
  }
}
