package dev.conclave.packs.builtin;

import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * A built-in tool made of its definition and a handler function, so a pack can declare its tools
 * as a list of (definition, method reference) pairs instead of one class per tool.
 */
public record DefinedTool(ToolDefinition definition, Handler handler) implements BuiltinTool {

  /** What the tool does for a caller; see {@link BuiltinTool#run}. */
  @FunctionalInterface
  public interface Handler {
    Future<String> run(ToolCaller caller, JsonObject input);
  }

  @Override
  public Future<String> run(ToolCaller caller, JsonObject input) {
    try {
      return handler.run(caller, input);
    } catch (RuntimeException e) {
      // handlers validate synchronously and throw ToolFailure; the contract is a failed future
      return Future.failedFuture(e);
    }
  }
}
