package dev.conclave.agentruntime.backend;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/**
 * Turns a raw API error (a status and a JSON body such as
 * {@code {"error":{"type":"invalid_request_error","message":"…"}}}) into one readable sentence. The
 * sentence keeps the status and the error type, so {@code TransientErrors} still recognises the
 * ones worth a retry, and drops the JSON.
 */
public final class FriendlyErrors {

  private static final int MAX = 500;

  private FriendlyErrors() {
  }

  /** A sentence for an HTTP error answer of the AI service. */
  public static String http(int status, String body) {
    String type = "";
    String message = body == null ? "" : body.strip();
    try {
      JsonObject o = new JsonObject(message);
      Object err = o.getValue("error");
      if (err instanceof JsonObject e) {
        type = e.getString("type", e.getString("code", ""));
        message = e.getString("message", "");
      } else if (err instanceof String s) {
        message = s;
      } else {
        message = o.getString("message", o.getString("detail", ""));
      }
    } catch (DecodeException | ClassCastException e) {
      // not JSON: keep the text as it is
    }
    StringBuilder b = new StringBuilder("The AI service answered HTTP ").append(status);
    if (!type.isBlank()) {
      b.append(" (").append(type).append(')');
    }
    if (!message.isBlank()) {
      b.append(": ").append(message);
    }
    return cap(b.toString());
  }

  /**
   * A sentence for an error text a CLI printed, which may embed API error JSON
   * ({@code API Error: 529 {"type":"error","error":{"type":"overloaded_error",…}}}).
   */
  public static String cli(String tool, String raw) {
    String text = raw == null ? "" : raw.strip();
    int brace = text.indexOf('{');
    if (brace >= 0) {
      String head = text.substring(0, brace).strip();
      try {
        JsonObject o = new JsonObject(text.substring(brace));
        JsonObject e = o.getValue("error") instanceof JsonObject inner ? inner : o;
        String type = e.getString("type", "");
        String message = e.getString("message", "");
        text = (head.isEmpty() ? "" : head + " ") + (type.isEmpty() ? "" : "(" + type + ") ") + message;
      } catch (DecodeException | ClassCastException ignored) {
        // keep the raw text
      }
    }
    return cap(tool + " failed: " + (text.isBlank() ? "no error message" : text.strip()));
  }

  private static String cap(String s) {
    return s.length() <= MAX ? s : s.substring(0, MAX) + "…";
  }
}
