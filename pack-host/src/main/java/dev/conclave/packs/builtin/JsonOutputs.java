package dev.conclave.packs.builtin;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Shared shapes of built-in tool outputs. Keys keep coven-gateway's order (alphabetical for its
 * map outputs, declaration order for its entities), lists are {@code []} rather than null, and a
 * list output stays within {@link #LIST_BUDGET} characters so it always fits a 4 MiB gRPC message.
 */
public final class JsonOutputs {

  /**
   * Characters of list items one output may carry. One character is at most three bytes of UTF-8,
   * so a full list stays well under the 4 MiB that ordinary gRPC clients accept.
   */
  public static final int LIST_BUDGET = 1_000_000;

  private JsonOutputs() {
  }

  /** An ISO-8601 UTC timestamp with at most millisecond precision, e.g. {@code 2026-01-28T10:00:00.123Z}. */
  public static String time(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.MILLIS));
  }

  /** {@link #time}, or JSON null for a missing timestamp. */
  public static String timeOrNull(Instant instant) {
    return instant == null ? null : time(instant);
  }

  /** The items that fit the limit and the size budget, and whether matching items were left out. */
  public record Page(JsonArray items, boolean truncated) {
  }

  /** Takes rows (fetched with {@link ListLimit#fetch()}) in order while they fit {@link #LIST_BUDGET}. */
  public static Page page(List<?> rows, ListLimit limit) {
    return page(rows, limit, 0);
  }

  /** {@link #page(List, ListLimit)}, when {@code used} characters of the budget are spent already. */
  public static Page page(List<?> rows, ListLimit limit, long used) {
    JsonArray items = new JsonArray();
    for (Object row : rows) {
      if (items.size() == limit.effective()) {
        return new Page(items, limit.capped(rows.size()));
      }
      int size = Json.encode(row).length() + 1;
      if (used + size > LIST_BUDGET) {
        return new Page(items, true);
      }
      used += size;
      items.add(row);
    }
    return new Page(items, false);
  }

  /**
   * A list output {@code {"count":N,"<key>":[...]}}, with {@code "truncated":true} added only when
   * items the caller asked for were left out (the 500-item cap or the size budget).
   */
  public static JsonObject list(String key, List<?> rows, ListLimit limit) {
    Page page = page(rows, limit);
    JsonObject out = new JsonObject().put("count", page.items().size()).put(key, page.items());
    return page.truncated() ? out.put("truncated", true) : out;
  }

  /** A status output such as {@code {"id":"...","status":"created"}}. */
  public static String status(String key, Object value, String status) {
    return keyFirst(key) ? new JsonObject().put(key, value).put("status", status).encode()
      : new JsonObject().put("status", status).put(key, value).encode();
  }

  // coven-gateway builds these outputs from Go maps, whose keys are sorted when encoded
  private static boolean keyFirst(String key) {
    return key.compareTo("status") < 0;
  }
}
