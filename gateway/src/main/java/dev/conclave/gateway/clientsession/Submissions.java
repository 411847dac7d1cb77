package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Optional;
import java.util.UUID;

/** Reads the fields of submissions; a field of the wrong shape is {@code submission_invalid} naming it. */
final class Submissions {

  /** An {@code exec_approval} decision: approved or not, and whether for the rest of the task. */
  record Decision(boolean approved, boolean forSession) {
  }

  private Submissions() {
  }

  static Optional<String> text(JsonObject op, String field) {
    Object v = op.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw GatewayErrors.badSubmission(field + " must be a string");
    }
    return Optional.ofNullable((String) v).filter(s -> !s.isBlank());
  }

  /** The op without its type tag: the body the registry operations take. */
  static JsonObject body(JsonObject op) {
    JsonObject copy = op.copy();
    copy.remove("type");
    return copy;
  }

  /** A user_input's items, joined: only text items are supported. */
  static String userText(JsonObject op) {
    if (!(op.getValue("items") instanceof JsonArray items) || items.isEmpty()) {
      throw GatewayErrors.badSubmission("user_input needs items: [{\"type\": \"text\", \"text\": \"…\"}]");
    }
    StringBuilder content = new StringBuilder();
    for (Object item : items) {
      if (!(item instanceof JsonObject i) || !"text".equals(i.getValue("type")) || !(i.getValue("text") instanceof String t)) {
        throw GatewayErrors.badSubmission("each user_input item must be {\"type\": \"text\", \"text\": \"…\"}; other item types (images) are not supported");
      }
      content.append(content.length() == 0 ? "" : "\n").append(t);
    }
    return content.toString();
  }

  static Decision decision(String decision) {
    return switch (decision) {
      case "approved", "allow" -> new Decision(true, false);
      case "approved_for_session" -> new Decision(true, true);
      case "denied", "deny", "abort" -> new Decision(false, false);
      default -> throw GatewayErrors.badSubmission("decision must be approved, approved_for_session, denied or abort");
    };
  }

  static UUID sessionId(String s) {
    try {
      return UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.badSubmission("session_id must be one that session_configured gave (a UUID)");
    }
  }

  /** {@code "<seq>"} or {@code "<seq>.<n>"}: as {seq, n}, n = -1 when absent. */
  static long[] eventId(String s) {
    try {
      int dot = s.indexOf('.');
      long[] out = dot < 0 ? new long[] {Long.parseLong(s), -1} : new long[] {Long.parseLong(s.substring(0, dot)), Long.parseLong(s.substring(dot + 1))};
      if (out[0] < 0 || (dot >= 0 && out[0] < 1) || out[1] < -1) {
        throw new NumberFormatException();
      }
      return out;
    } catch (NumberFormatException e) {
      throw GatewayErrors.badSubmission("last_event_id must be an event_id this session sent ('<seq>.<n>'), got '" + s + "'");
    }
  }
}
