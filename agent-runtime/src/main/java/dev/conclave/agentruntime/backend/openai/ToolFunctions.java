package dev.conclave.agentruntime.backend.openai;

import dev.conclave.agent.PackToolInfo;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pack tools of the agent's Welcome, offered to the model as Chat Completions functions. Function
 * names may only hold {@code [A-Za-z0-9_-]} (64 at most), so other characters become {@code _} and
 * the tool is found again by the name the model calls. In plan mode only read-only tools are offered.
 */
final class ToolFunctions {

  private final JsonArray functions = new JsonArray();
  private final Map<String, PackToolInfo> byFunctionName = new HashMap<>();

  ToolFunctions(List<PackToolInfo> tools, ToolPolicy policy) {
    for (PackToolInfo t : tools) {
      if (policy.mode() == GateMode.PLAN && !policy.isReadOnly(t.name())) {
        continue;
      }
      String fn = functionName(t.name());
      if (byFunctionName.putIfAbsent(fn, t) != null) {
        continue;   // two tools collapse to one function name: the first keeps it
      }
      JsonObject parameters;
      try {
        parameters = new JsonObject(t.inputSchemaJson() == null || t.inputSchemaJson().isBlank() ? "{}" : t.inputSchemaJson());
      } catch (DecodeException e) {
        parameters = new JsonObject();
      }
      if (!parameters.containsKey("type")) {
        parameters.put("type", "object");
      }
      functions.add(new JsonObject().put("type", "function").put("function", new JsonObject()
        .put("name", fn).put("description", t.description()).put("parameters", parameters)));
    }
  }

  static String functionName(String tool) {
    String n = tool.replaceAll("[^A-Za-z0-9_-]", "_");
    return n.length() > 64 ? n.substring(0, 64) : n;
  }

  JsonArray functions() {
    return functions;
  }

  boolean isEmpty() {
    return functions.isEmpty();
  }

  /** The pack tool a function call names. */
  Optional<PackToolInfo> tool(String functionName) {
    return Optional.ofNullable(byFunctionName.get(functionName));
  }
}
