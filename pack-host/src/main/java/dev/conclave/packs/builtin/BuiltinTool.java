package dev.conclave.packs.builtin;

import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * One tool of a built-in pack: its wire definition (name, description, input schema, capability)
 * and its implementation. The dispatcher has already checked the caller's capabilities and parsed
 * and schema-checked {@code input} before {@link #run} is called.
 */
public interface BuiltinTool {

  ToolDefinition definition();

  /**
   * Runs the tool for {@code caller}. Succeeds with the output as JSON text; fails with a
   * {@link ToolFailure} whose message the agent sees as the tool's error. Any other failure is
   * reported to the agent as a generic error and logged.
   */
  Future<String> run(ToolCaller caller, JsonObject input);

  default String name() {
    return definition().getName();
  }
}
