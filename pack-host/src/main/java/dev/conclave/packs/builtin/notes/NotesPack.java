package dev.conclave.packs.builtin.notes;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.DefinedTool;
import dev.conclave.packs.builtin.JsonOutputs;
import dev.conclave.packs.builtin.ListLimit;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolDefinitions;
import dev.conclave.packs.builtin.ToolFailure;
import dev.conclave.packs.builtin.ToolInputs;
import dev.conclave.packs.store.NoteStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The {@code builtin:notes} pack (capability {@code notes}): an agent's own key/value notes,
 * {@code note_set}, {@code note_get}, {@code note_list} and {@code note_delete}.
 */
public final class NotesPack {

  public static final String PACK_ID = "builtin:notes";
  public static final String CAPABILITY = "notes";

  private static final String KEY_VALUE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"},"
    + "\"value\":{\"type\":\"string\"}},\"required\":[\"key\",\"value\"]}";
  private static final String KEY_SCHEMA = "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}";
  private static final String NO_INPUT_SCHEMA = "{\"type\":\"object\",\"properties\":{}}";

  private final NoteStore store;
  private final Clock clock;

  private NotesPack(NoteStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  public static BuiltinPack create(Pool pool, Clock clock) {
    NotesPack pack = new NotesPack(new NoteStore(pool), clock);
    return new BuiltinPack(PACK_ID, CAPABILITY, List.of(
      new DefinedTool(ToolDefinitions.of("note_set", "Store a note", KEY_VALUE_SCHEMA, CAPABILITY), pack::set),
      new DefinedTool(ToolDefinitions.of("note_get", "Retrieve a note", KEY_SCHEMA, CAPABILITY), pack::get),
      new DefinedTool(ToolDefinitions.of("note_list", "List all note keys", NO_INPUT_SCHEMA, CAPABILITY), pack::list),
      new DefinedTool(ToolDefinitions.of("note_delete", "Delete a note", KEY_SCHEMA, CAPABILITY), pack::delete)));
  }

  private Future<String> set(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String key = key(input);
    String value = ToolInputs.optional(input, "value", ToolInputs.MAX_TEXT);
    return store.set(agent, key, value, clock.instant().truncatedTo(ChronoUnit.MILLIS))
      .map(v -> JsonOutputs.status("key", key, "saved"));
  }

  private Future<String> get(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String key = key(input);
    return store.get(agent, key).map(value -> new JsonObject()
      .put("key", key)
      .put("value", value.orElseThrow(() -> notFound(key)))
      .encode());
  }

  /** Lists the caller's keys in ascending order; the input is ignored, as in coven-gateway. */
  private Future<String> list(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    ListLimit limit = ListLimit.UNBOUNDED;
    return store.keys(agent, limit.fetch()).map(keys -> JsonOutputs.list("keys", keys, limit).encode());
  }

  private Future<String> delete(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String key = key(input);
    return store.delete(agent, key).map(deleted -> {
      if (!deleted) {
        throw notFound(key);
      }
      return JsonOutputs.status("key", key, "deleted");
    });
  }

  private static String key(JsonObject input) {
    return ToolInputs.required(input, "key", ToolInputs.MAX_NAME);
  }

  private static ToolFailure notFound(String key) {
    return new ToolFailure("note not found: " + ToolInputs.quoted(key));
  }
}
