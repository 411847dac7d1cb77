package dev.conclave.cli.commands;

import io.vertx.core.json.JsonObject;

import java.io.PrintStream;

/**
 * Session events for a person: the agent's text as it streams, and every other thing that happens
 * (tool calls, approvals waiting, questions, errors) as one short line, marked so it stands apart from
 * the text. Events a person need not see (token counts, turn ends) are left out; {@code -o json}
 * prints every event instead.
 */
final class EventPrinter {

  private final PrintStream out;
  private final boolean echoUser;
  private boolean midLine;
  private boolean streamed;

  /** With {@code echoUser}, the people's messages are shown too ({@code tail}); {@code send} knows its own. */
  EventPrinter(PrintStream out, boolean echoUser) {
    this.out = out;
    this.echoUser = echoUser;
  }

  void print(JsonObject msg) {
    String type = msg.getString("type", "");
    switch (type) {
      case "agent_message_delta" -> {
        String delta = msg.getString("delta", "");
        out.print(delta);
        midLine = !delta.endsWith("\n") && !delta.isEmpty() || midLine && delta.isEmpty();
        streamed = true;
      }
      case "agent_message" -> {
        // the whole answer again, at the end: shown only when nothing streamed
        if (!streamed) {
          text(msg.getString("message", ""));
        }
      }
      case "user_message" -> {
        if (echoUser) {
          line("> " + msg.getString("message", ""));
        }
      }
      case "tool_call_begin" -> line("[tool " + msg.getString("name", "?") + " " + msg.getString("call_id", "")
        + "] " + brief(msg.getValue("input")));
      case "tool_call_end" -> line("[tool " + msg.getString("call_id", "") + " " + (msg.getBoolean("is_error", false) ? "failed" : "done")
        + "] " + brief(msg.getValue("output")));
      case "tool_call_state" -> line("[tool " + msg.getString("call_id", "") + " " + msg.getString("state", "")
        + "]" + (msg.getString("detail", "").isBlank() ? "" : " " + brief(msg.getString("detail"))));
      case "exec_approval_request" -> line("[approval needed " + msg.getString("call_id", "") + "] " + msg.getString("tool", "?")
        + " " + brief(msg.getValue("input")) + "  (conclave approve|deny " + msg.getString("call_id", "") + " --agent …)");
      case "exec_approval_decision" -> line("[approval] " + msg.getString("message", ""));
      case "background_event" -> {
        // a backend's session bookkeeping (session_init, session_orphaned) is not for a person
        if (!msg.getString("kind", "").startsWith("session_")) {
          line("[" + msg.getString("kind", "event") + "] " + brief(msg.getString("message", "")));
        }
      }
      case "lifecycle_event" -> line("[lifecycle] " + msg.getString("from", "?") + " -> " + msg.getString("to", "?"));
      case "task_complete" -> {
        endLine();
        streamed = false;
      }
      case "error" -> line("[error] " + msg.getString("message", ""));
      default -> {
        // token counts, turn ends, task starts and event types of later versions: not for a person
      }
    }
    out.flush();
  }

  private void text(String text) {
    out.print(text);
    midLine = !text.endsWith("\n") && !text.isEmpty();
  }

  private void line(String text) {
    endLine();
    out.println(text);
  }

  void endLine() {
    if (midLine) {
      out.println();
      midLine = false;
    }
  }

  private static String brief(Object value) {
    String text = value == null ? "" : value instanceof String s ? s : String.valueOf(value);
    text = text.replaceAll("[\\r\\n\\t]+", " ");
    return text.length() > 120 ? text.substring(0, 117) + "..." : text;
  }
}
