package dev.conclave.agentruntime.backend.claude;

import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.FriendlyErrors;
import dev.conclave.agentruntime.backend.cli.CliTools;
import dev.conclave.agentruntime.backend.cli.StreamMapper;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Maps Claude Code's {@code stream-json} lines onto backend callbacks:
 * {@code system/init} gives the session id; {@code assistant} messages carry {@code text},
 * {@code thinking} and {@code tool_use} content blocks; {@code user} messages carry the
 * {@code tool_result} blocks; the final {@code result} line has the answer, {@code num_turns},
 * {@code usage}, {@code is_error} (an API error such as {@code API Error: 529 …} is in
 * {@code result}) and {@code permission_denials}.
 */
final class ClaudeStreamMapper implements StreamMapper {

  private final BackendSession session;
  private final BackendCallbacks callbacks;
  private final CliTools tools;
  private final StringBuilder text = new StringBuilder();
  private final Map<String, String[]> toolInfo = new HashMap<>();   // id -> {name, input}
  private String sessionId;
  private JsonObject result;

  ClaudeStreamMapper(BackendSession session, BackendCallbacks callbacks, CliTools tools) {
    this.session = session;
    this.callbacks = callbacks;
    this.tools = tools;
  }

  @Override
  public Future<Void> onEvent(JsonObject e) {
    if (e.getString("session_id") != null && !e.getString("session_id").isBlank()) {
      sessionId = e.getString("session_id");
    }
    String type = e.getString("type", "");
    return switch (type) {
      case "assistant" -> blocks(e, true);
      case "user" -> blocks(e, false);
      case "result" -> {
        result = e;
        yield usage(e.getJsonObject("usage")).compose(v -> denials(e.getJsonArray("permission_denials")));
      }
      default -> Future.succeededFuture();
    };
  }

  private Future<Void> blocks(JsonObject e, boolean assistant) {
    JsonObject message = e.getJsonObject("message", new JsonObject());
    Object content = message.getValue("content");
    if (!(content instanceof JsonArray blocks)) {
      return Future.succeededFuture();
    }
    Future<Void> f = Future.succeededFuture();
    for (Object o : blocks) {
      if (!(o instanceof JsonObject b)) {
        continue;
      }
      String type = b.getString("type", "");
      if (assistant && type.equals("text")) {
        String t = b.getString("text", "");
        text.append(t);
        f = f.compose(v -> callbacks.textChunk(t));
      } else if (assistant && type.equals("thinking")) {
        String t = b.getString("thinking", "");
        f = f.compose(v -> t.isBlank() ? Future.succeededFuture() : callbacks.thinking(t));
      } else if (assistant && type.equals("tool_use")) {
        String id = b.getString("id", "");
        String name = b.getString("name", "");
        String input = b.getValue("input") instanceof JsonObject in ? in.encode() : "{}";
        toolInfo.put(id, new String[] {name, input});
        f = f.compose(v -> tools.announced(id, name, input));
      } else if (!assistant && type.equals("tool_result")) {
        String id = b.getString("tool_use_id", "");
        String[] info = toolInfo.getOrDefault(id, new String[] {"tool", "{}"});
        String output = resultText(b.getValue("content"));
        boolean isError = b.getBoolean("is_error", false);
        f = f.compose(v -> tools.finished(id, info[0], info[1], output, isError));
      }
    }
    return f;
  }

  private static String resultText(Object content) {
    if (content instanceof String s) {
      return s;
    }
    if (content instanceof JsonArray a) {
      StringBuilder b = new StringBuilder();
      for (Object o : a) {
        if (o instanceof JsonObject j && "text".equals(j.getString("type"))) {
          b.append(j.getString("text", ""));
        }
      }
      return b.toString();
    }
    return "";
  }

  private Future<Void> usage(JsonObject u) {
    if (u == null) {
      return Future.succeededFuture();
    }
    return callbacks.usage(new TokenUsage(u.getInteger("input_tokens", 0), u.getInteger("output_tokens", 0),
      u.getInteger("cache_read_input_tokens", 0), u.getInteger("cache_creation_input_tokens", 0), 0));
  }

  private Future<Void> denials(JsonArray denials) {
    if (denials == null) {
      return Future.succeededFuture();
    }
    Future<Void> f = Future.succeededFuture();
    for (Object o : denials) {
      if (o instanceof JsonObject d) {
        f = f.compose(v -> tools.refusedByCli(d.getString("tool_use_id", ""), "Claude Code's own permissions refused it"));
      }
    }
    return f;
  }

  @Override
  public String stopReason() {
    return tools.stopReason();
  }

  @Override
  public BackendResponse finish(int exitCode, String stderr) {
    if (tools.stopReason() != null) {
      return BackendResponse.error("Claude Code stopped: " + tools.stopReason() + ".");
    }
    Optional<String> resume = session.resumeSessionId();
    if (result == null) {
      if (resume.isPresent() && stderr.contains("No conversation found")) {
        return BackendResponse.success("", resume.get(), 0);   // stale session: the handler retries fresh
      }
      return BackendResponse.error(FriendlyErrors.cli("Claude Code", "exited with code " + exitCode
        + (stderr.isBlank() ? "" : ": " + stderr)));
    }
    if (result.getBoolean("is_error", false) || !"success".equals(result.getString("subtype", "success"))) {
      String raw = result.getString("result", result.getString("subtype", "error"));
      return BackendResponse.error(FriendlyErrors.cli("Claude Code", raw));
    }
    String answer = result.getString("result", text.toString());
    return new BackendResponse(answer, Optional.ofNullable(sessionId), result.getDouble("total_cost_usd", 0.0),
      result.getLong("duration_ms", 0L), result.getInteger("num_turns", 0), tools.names(), false);
  }
}
