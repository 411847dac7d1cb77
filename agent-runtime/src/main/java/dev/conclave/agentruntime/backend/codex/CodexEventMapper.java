package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.FriendlyErrors;
import dev.conclave.agentruntime.backend.cli.ObservedTools;
import dev.conclave.agentruntime.backend.cli.StreamMapper;
import dev.conclave.agentruntime.gate.ToolGate;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * Maps {@code codex exec --json} events onto backend callbacks: {@code thread.started} gives the
 * session (thread) id; {@code item.started} / {@code item.completed} carry items of type
 * {@code agent_message} (text), {@code reasoning} (thinking), {@code command_execution},
 * {@code file_change}, {@code mcp_tool_call} and {@code web_search} (tools); {@code turn.completed}
 * has the usage; {@code turn.failed} and {@code error} carry errors.
 */
final class CodexEventMapper implements StreamMapper {

  private final BackendSession session;
  private final BackendCallbacks callbacks;
  private final ObservedTools tools;
  private final StringBuilder text = new StringBuilder();
  private String threadId;
  private int turns;
  private String error;

  CodexEventMapper(BackendSession session, BackendCallbacks callbacks, ToolGate gate) {
    this.session = session;
    this.callbacks = callbacks;
    this.tools = new ObservedTools(gate, callbacks);
  }

  @Override
  public Future<Void> onEvent(JsonObject e) {
    String type = e.getString("type", "");
    switch (type) {
      case "thread.started":
        threadId = e.getString("thread_id");
        return Future.succeededFuture();
      case "turn.completed":
        turns++;
        JsonObject u = e.getJsonObject("usage", new JsonObject());
        return callbacks.usage(new TokenUsage(u.getInteger("input_tokens", 0), u.getInteger("output_tokens", 0),
          u.getInteger("cached_input_tokens", 0), 0, u.getInteger("reasoning_output_tokens", 0)));
      case "turn.failed":
        error = e.getJsonObject("error", new JsonObject()).getString("message", "turn failed");
        return Future.succeededFuture();
      case "error":
        if (error == null) {
          error = e.getString("message", "error");
        }
        return Future.succeededFuture();
      case "item.started":
        return item(e.getJsonObject("item", new JsonObject()), false);
      case "item.completed":
        return item(e.getJsonObject("item", new JsonObject()), true);
      default:
        return Future.succeededFuture();
    }
  }

  private Future<Void> item(JsonObject item, boolean completed) {
    String id = item.getString("id", "item");
    String type = item.getString("type", item.getString("item_type", ""));
    switch (type) {
      case "agent_message": {
        if (!completed) {
          return Future.succeededFuture();
        }
        String t = item.getString("text", "");
        if (text.length() > 0) {
          text.append("\n\n");
        }
        text.append(t);
        return callbacks.textChunk(t);
      }
      case "reasoning":
        return completed ? callbacks.thinking(item.getString("text", "")) : Future.succeededFuture();
      case "command_execution": {
        String input = new JsonObject().put("command", item.getString("command", "")).encode();
        if (!completed) {
          return tools.started(id, "shell", input);
        }
        Integer exit = item.getInteger("exit_code");
        boolean failed = "failed".equals(item.getString("status")) || (exit != null && exit != 0);
        return tools.finished(id, "shell", input, item.getString("aggregated_output", ""), failed);
      }
      case "file_change": {
        String input = new JsonObject().put("changes", item.getJsonArray("changes", new JsonArray())).encode();
        if (!completed) {
          return tools.started(id, "apply_patch", input);
        }
        return tools.finished(id, "apply_patch", input, item.getString("status", "completed"),
          "failed".equals(item.getString("status")));
      }
      case "mcp_tool_call": {
        String name = item.getString("server", "mcp") + "." + item.getString("tool", "tool");
        String input = item.getValue("arguments") instanceof JsonObject a ? a.encode() : "{}";
        if (!completed) {
          return tools.started(id, name, input);
        }
        Object result = item.getValue("result");
        String out = result == null ? item.getString("status", "") : result.toString();
        return tools.finished(id, name, input, out, "failed".equals(item.getString("status")));
      }
      case "web_search": {
        String input = new JsonObject().put("query", item.getString("query", "")).encode();
        return completed ? tools.finished(id, "web_search", input, "searched", false) : tools.started(id, "web_search", input);
      }
      case "error":
        return completed ? callbacks.thinking("warning: " + item.getString("message", "")) : Future.succeededFuture();
      default:
        return Future.succeededFuture();
    }
  }

  @Override
  public String stopReason() {
    return tools.denied();
  }

  @Override
  public BackendResponse finish(int exitCode, String stderr) {
    if (tools.denied() != null) {
      return BackendResponse.error("Codex wanted to run " + tools.denied() + "; the run was stopped.");
    }
    if (error != null) {
      return BackendResponse.error(FriendlyErrors.cli("Codex", error));
    }
    Optional<String> resume = session.resumeSessionId();
    if (turns == 0 && resume.isPresent()) {
      return BackendResponse.success("", resume.get(), 0);   // stale thread: the handler retries fresh
    }
    if (exitCode != 0) {
      return BackendResponse.error(FriendlyErrors.cli("Codex", "exited with code " + exitCode
        + (stderr.isBlank() ? "" : ": " + stderr)));
    }
    return new BackendResponse(text.toString(), Optional.ofNullable(threadId), 0, 0, turns, tools.names(), false);
  }

  List<String> toolNames() {
    return tools.names();
  }
}
