package dev.conclave.gateway.ledger;

import dev.conclave.gateway.GatewayErrors;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/** Parses what clients send to page and resume conversations: cursors, event ids, times. */
public final class EventCursors {

  private static final String PREFIX = "c1:";

  private EventCursors() {
  }

  /** An opaque GetEvents cursor for "after this event". */
  public static String cursorAfter(long seq) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString((PREFIX + seq).getBytes(StandardCharsets.UTF_8));
  }

  public static long parseCursor(String cursor) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (!text.startsWith(PREFIX)) {
        throw GatewayErrors.badCursor();
      }
      long seq = Long.parseLong(text.substring(PREFIX.length()));
      if (seq < 0) {
        throw GatewayErrors.badCursor();
      }
      return seq;
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.badCursor();
    }
  }

  /** Event ids are the ledger's sequence numbers: 1, 2, 3… within a conversation. */
  public static long parseEventId(String id) {
    try {
      long seq = Long.parseLong(id.trim());
      if (seq < 0) {
        throw GatewayErrors.badEventId(id);
      }
      return seq;
    } catch (NumberFormatException e) {
      throw GatewayErrors.badEventId(id);
    }
  }

  public static Instant parseTime(String field, String iso) {
    try {
      return OffsetDateTime.parse(iso).toInstant();
    } catch (DateTimeParseException e) {
      try {
        return Instant.parse(iso);
      } catch (DateTimeParseException again) {
        throw GatewayErrors.invalid(field, "must be an ISO-8601 time such as 2026-01-31T12:00:00Z, got '" + iso + "'");
      }
    }
  }
}
