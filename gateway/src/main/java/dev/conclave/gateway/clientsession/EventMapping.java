package dev.conclave.gateway.clientsession;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * How each conversation ledger event (and so each Coven event) becomes session protocol events
 * ({@code EventMsg}, snake_case type tags). One ledger event may give several session events, in
 * a fixed order; docs/sessions.md has the table. A Coven request is one task; a tool result ends
 * a turn (the tool's output goes back to the model), and Done ends the last turn and the task.
 */
public final class EventMapping {

  private EventMapping() {
  }

  /** The session events for {@code e}; empty when it shows nothing to a UI. */
  public static List<JsonObject> map(LedgerEvent e) {
    ClientStreamEvent v = view(e);
    String text = e.text().orElse("");
    String request = e.requestId().map(Object::toString).orElse("");
    return switch (e.kind()) {
      case INBOUND -> List.of(msg("task_started").put("request_id", request), msg("user_message").put("message", text));
      case THINKING -> List.of(msg("agent_reasoning").put("text", v.getThinking().getContent()));
      case TEXT -> List.of(msg("agent_message_delta").put("delta", v.getText().getContent()));
      case TOOL_USE -> List.of(msg("tool_call_begin").put("call_id", v.getToolUse().getId()).put("name", v.getToolUse().getName())
        .put("input", v.getToolUse().getInputJson()));
      case TOOL_RESULT -> List.of(msg("tool_call_end").put("call_id", v.getToolResult().getId()).put("output", v.getToolResult().getOutput())
          .put("is_error", v.getToolResult().getIsError()),
        msg("turn_complete").put("response_id", ResponseIds.turn(request, e.seq())));
      case TOOL_STATE -> List.of(msg("tool_call_state").put("call_id", v.getToolState().getId())
        .put("state", v.getToolState().getState().name().toLowerCase().replace("tool_state_", ""))
        .put("detail", v.getToolState().hasDetail() ? v.getToolState().getDetail() : null));
      case TOOL_APPROVAL -> List.of(msg("exec_approval_request").put("call_id", v.getToolApproval().getToolId())
        .put("tool", v.getToolApproval().getToolName()).put("input", v.getToolApproval().getInputJson()));
      case TOOL_DECISION -> List.of(msg("exec_approval_decision").put("message", text));
      case USAGE -> {
        var u = v.getUsage();
        yield List.of(msg("token_count").put("input_tokens", u.getInputTokens()).put("output_tokens", u.getOutputTokens())
          .put("cached_input_tokens", u.getCacheReadTokens()).put("cache_write_tokens", u.getCacheWriteTokens())
          .put("reasoning_output_tokens", u.getThinkingTokens()).put("total_tokens", (long) u.getInputTokens() + u.getOutputTokens()));
      }
      case USER_QUESTION, QUESTION_CLOSED, FILE, SESSION_INIT, SESSION_ORPHANED -> List.of(msg("background_event")
        .put("kind", e.kind().id()).put("message", text));
      case DONE -> {
        String full = v.getDone().getFullResponse();
        yield List.of(msg("agent_message").put("message", full),
          msg("turn_complete").put("response_id", request),
          msg("task_complete").put("last_agent_message", full).put("response_id", request));
      }
      case ERROR -> List.of(msg("error").put("message", v.getError().getMessage()).put("recoverable", v.getError().getRecoverable()));
      case CANCELLED -> List.of(msg("error").put("message", text.startsWith("cancelled: ") ? text.substring("cancelled: ".length()) : text)
        .put("cancelled", true));
      case LIFECYCLE -> {
        JsonObject event = new JsonObject(text);
        event.remove("type");
        yield List.of(msg("lifecycle_event").mergeIn(event),
          msg("agent_status_changed").put("agent_id", event.getString("agent_id")).put("status", event.getString("to")));
      }
    };
  }

  /** Whether {@code e} ends its request (and so the task it belongs to). */
  public static boolean endsTask(LedgerEvent e) {
    return e.kind().terminal();
  }

  static JsonObject msg(String type) {
    return new JsonObject().put("type", type);
  }

  private static ClientStreamEvent view(LedgerEvent e) {
    try {
      return ClientStreamEvent.parseFrom(e.view());
    } catch (InvalidProtocolBufferException bad) {
      throw new IllegalStateException("ledger holds an unreadable event", bad);
    }
  }
}
