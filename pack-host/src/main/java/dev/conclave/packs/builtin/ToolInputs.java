package dev.conclave.packs.builtin;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads and checks the input fields of built-in tools, failing with the {@link ToolFailure} messages
 * agents see. The dispatcher has checked the input against the tool's schema already; these checks
 * add what a schema does not say (empty strings, sizes, dates, ids). The size limits are repeated as
 * CHECK constraints in {@code db/packs/V1__builtin_packs.sql}. Lengths count Unicode characters
 * (code points), as PostgreSQL's {@code length} does.
 */
public final class ToolInputs {

  /** Free text: log messages, todo descriptions and notes, posts, note values, mail bodies. */
  public static final int MAX_TEXT = 65_536;
  /** Names: subjects, note keys, agent ids. */
  public static final int MAX_NAME = 200;
  public static final int MAX_TAGS = 32;
  public static final int MAX_TAG = 100;
  /** The most items any list or search returns. */
  public static final int MAX_LIST = 500;

  private static final Pattern UUID_TEXT =
    Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private ToolInputs() {
  }

  /** The calling agent's id; every built-in keeps its data per agent, so there must be one. */
  public static String agent(ToolCaller caller) {
    String id = caller == null ? null : caller.agentId();
    if (id == null || id.isEmpty()) {
      throw new ToolFailure("this tool must be called by an agent");
    }
    return id;
  }

  /** A string field; absent or null reads as "". */
  public static String string(JsonObject input, String field) {
    Object value = input.getValue(field);
    if (value == null) {
      return "";
    }
    if (!(value instanceof String s)) {
      throw new ToolFailure("invalid input: " + field + " must be a string");
    }
    return s;
  }

  /** A string field that must be present and non-empty, at most {@code max} characters. */
  public static String required(JsonObject input, String field, int max) {
    String value = string(input, field);
    if (value.isEmpty()) {
      throw new ToolFailure(field + " is required");
    }
    return bounded(field, value, max);
  }

  /** An optional string field ("" when absent), at most {@code max} characters. */
  public static String optional(JsonObject input, String field, int max) {
    return bounded(field, string(input, field), max);
  }

  /** Checks a text's size, and that PostgreSQL can store it (text cannot hold NUL). */
  public static String bounded(String field, String value, int max) {
    int length = value.codePointCount(0, value.length());
    if (length > max) {
      throw new ToolFailure(field + " is too long: " + length + " characters, at most " + max);
    }
    if (value.indexOf('\0') >= 0) {
      throw new ToolFailure(field + " must not contain NUL characters");
    }
    return value;
  }

  /** A boolean field; absent or null reads as false. */
  public static boolean bool(JsonObject input, String field) {
    Object value = input.getValue(field);
    if (value == null) {
      return false;
    }
    if (!(value instanceof Boolean b)) {
      throw new ToolFailure("invalid input: " + field + " must be a boolean");
    }
    return b;
  }

  /** An integer limit field; absent, null, zero or negative means {@code defaultLimit}. */
  public static ListLimit limit(JsonObject input, String field, int defaultLimit) {
    Object value = input.getValue(field);
    if (value == null) {
      return ListLimit.of(0, defaultLimit);
    }
    if (!(value instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      throw new ToolFailure("invalid input: " + field + " must be an integer");
    }
    // a parser may hand over a BigInteger, whose longValue() would wrap around
    double approx = n.doubleValue();
    long given = approx >= Long.MAX_VALUE ? Long.MAX_VALUE : approx <= Long.MIN_VALUE ? 0 : n.longValue();
    return ListLimit.of(given, defaultLimit);
  }

  /** An array of strings, each at most {@link #MAX_TAG} characters, at most {@link #MAX_TAGS} of them. */
  public static List<String> tags(JsonObject input, String field) {
    Object value = input.getValue(field);
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof JsonArray array)) {
      throw new ToolFailure("invalid input: " + field + " must be an array of strings");
    }
    if (array.size() > MAX_TAGS) {
      throw new ToolFailure("too many " + field + ": " + array.size() + ", at most " + MAX_TAGS);
    }
    List<String> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (!(item instanceof String s)) {
        throw new ToolFailure("invalid input: " + field + " must be an array of strings");
      }
      out.add(bounded("each of " + field, s, MAX_TAG));
    }
    return out;
  }

  /**
   * An RFC 3339 date-time such as {@code 2026-01-28T10:00:00Z}, truncated to milliseconds; "" means
   * none. A bad value fails with {@code <errorPrefix>: ...}, for example {@code invalid since date}.
   */
  public static Optional<Instant> dateTime(String value, String errorPrefix) {
    if (value.isEmpty()) {
      return Optional.empty();
    }
    try {
      OffsetDateTime parsed = OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
      // RFC 3339 years have four digits; PostgreSQL could not store most of the rest
      if (parsed.getYear() >= 0 && parsed.getYear() <= 9999) {
        return Optional.of(parsed.toInstant().truncatedTo(ChronoUnit.MILLIS));
      }
    } catch (DateTimeParseException e) {
      // reported below, in words an agent can act on
    }
    throw new ToolFailure(errorPrefix + ": " + quoted(value) + " is not an RFC 3339 date-time such as 2026-01-28T10:00:00Z");
  }

  /**
   * An item id field: empty fails with {@code <field> is required}; anything that is not a UUID
   * names no item, so it fails with {@code notFound}, the same error as an id of no item.
   */
  public static UUID id(JsonObject input, String field, String notFound) {
    String value = string(input, field);
    if (value.isEmpty()) {
      throw new ToolFailure(field + " is required");
    }
    return uuid(value).orElseThrow(() -> new ToolFailure(notFound));
  }

  /** An item id; anything that is not a UUID names no item, so it reads as empty. */
  public static Optional<UUID> uuid(String value) {
    return UUID_TEXT.matcher(value).matches() ? Optional.of(UUID.fromString(value)) : Optional.empty();
  }

  /** A value as a double-quoted, escaped string, the way coven-gateway quotes values in errors. */
  public static String quoted(String value) {
    return Json.encode(value);
  }
}
