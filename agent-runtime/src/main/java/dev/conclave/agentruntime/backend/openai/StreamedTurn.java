package dev.conclave.agentruntime.backend.openai;

import dev.conclave.agent.TokenUsage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One streamed Chat Completions answer, put together from its chunks: the text, the reasoning
 * some servers stream ({@code reasoning_content} or {@code reasoning}), the tool calls (whose
 * {@code id}, name and argument fragments arrive spread over chunks by {@code index}), the finish
 * reason and the usage (the last chunk's, with {@code stream_options.include_usage}).
 */
final class StreamedTurn {

  /** A tool call the model made. */
  record ToolCall(String id, String name, String arguments) {
  }

  private final StringBuilder text = new StringBuilder();
  private final Map<Integer, String[]> calls = new TreeMap<>();   // index -> {id, name, arguments}
  private String finishReason = "";
  private JsonObject usage;

  /** What one chunk adds: the text delta and the reasoning delta, for streaming them on. */
  record Delta(String text, String reasoning) {
  }

  Delta add(JsonObject chunk) {
    if (chunk.getValue("usage") instanceof JsonObject u) {
      usage = u;
    }
    JsonArray choices = chunk.getJsonArray("choices", new JsonArray());
    if (choices.isEmpty()) {
      return new Delta("", "");
    }
    JsonObject choice = choices.getJsonObject(0);
    if (choice.getString("finish_reason") != null) {
      finishReason = choice.getString("finish_reason");
    }
    JsonObject delta = choice.getJsonObject("delta", new JsonObject());
    String t = delta.getValue("content") instanceof String s ? s : "";
    text.append(t);
    String reasoning = delta.getValue("reasoning_content") instanceof String r ? r
      : delta.getValue("reasoning") instanceof String r2 ? r2 : "";
    JsonArray toolCalls = delta.getJsonArray("tool_calls");
    if (toolCalls != null) {
      for (int i = 0; i < toolCalls.size(); i++) {
        JsonObject call = toolCalls.getJsonObject(i);
        int index = call.getInteger("index", i);
        String[] acc = calls.computeIfAbsent(index, k -> new String[] {"", "", ""});
        if (call.getString("id") != null && !call.getString("id").isEmpty()) {
          acc[0] = call.getString("id");
        }
        JsonObject fn = call.getJsonObject("function", new JsonObject());
        if (fn.getString("name") != null) {
          acc[1] = acc[1] + fn.getString("name");
        }
        if (fn.getString("arguments") != null) {
          acc[2] = acc[2] + fn.getString("arguments");
        }
      }
    }
    return new Delta(t, reasoning);
  }

  String text() {
    return text.toString();
  }

  String finishReason() {
    return finishReason;
  }

  List<ToolCall> toolCalls() {
    List<ToolCall> out = new ArrayList<>();
    calls.forEach((index, acc) -> out.add(new ToolCall(acc[0].isEmpty() ? "call_" + index : acc[0], acc[1],
      acc[2].isBlank() ? "{}" : acc[2])));
    return out;
  }

  Optional<TokenUsage> usage() {
    if (usage == null) {
      return Optional.empty();
    }
    JsonObject prompt = usage.getJsonObject("prompt_tokens_details", new JsonObject());
    JsonObject completion = usage.getJsonObject("completion_tokens_details", new JsonObject());
    return Optional.of(new TokenUsage(usage.getInteger("prompt_tokens", 0), usage.getInteger("completion_tokens", 0),
      prompt.getInteger("cached_tokens", 0), 0, completion.getInteger("reasoning_tokens", 0)));
  }

  /** The assistant message to put back into the history. */
  JsonObject assistantMessage() {
    JsonObject m = new JsonObject().put("role", "assistant").put("content", text.toString());
    List<ToolCall> tc = toolCalls();
    if (!tc.isEmpty()) {
      JsonArray arr = new JsonArray();
      for (ToolCall c : tc) {
        arr.add(new JsonObject().put("id", c.id()).put("type", "function")
          .put("function", new JsonObject().put("name", c.name()).put("arguments", c.arguments())));
      }
      m.put("tool_calls", arr);
    }
    return m;
  }
}
