package dev.conclave.swarm.validation;

import dev.conclave.platform.validation.TextRules;
import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the members of one JSON object with their limits checked. Every failure is an
 * {@code invalid_operation} problem naming the member by its path (e.g. {@code agent.capabilities.skills}).
 * JSON {@code null} counts as absent. The protocol operations use only the readers that check sizes,
 * formats and ranges and pass anything else through (see below): their JSON types, required members
 * and enumerations are checked once, by the database functions. The strict readers (types and
 * presence too) serve the coordinator's own admin requests (task drafts, operator commands).
 */
public final class JsonFields {

  private final JsonObject json;
  private final String prefix;

  private JsonFields(JsonObject json, String prefix) {
    this.json = json;
    this.prefix = prefix;
  }

  public static JsonFields of(JsonObject json) {
    return new JsonFields(json, "");
  }

  /** Members named {@code prefix + key} in problems, e.g. prefix {@code tasks[3].}. */
  public static JsonFields of(JsonObject json, String prefix) {
    return new JsonFields(json, prefix);
  }

  public String path(String key) {
    return prefix + key;
  }

  /** The raw value (any JSON), or null. */
  public Object raw(String key) {
    return json.getValue(key);
  }

  public String string(String key, boolean required, int maxLength) {
    Object value = present(key, required);
    if (value == null) {
      return null;
    }
    if (!(value instanceof String text)) {
      throw SwarmErrors.invalidField(path(key), "must be a string");
    }
    if (required && text.isBlank()) {
      throw SwarmErrors.invalidField(path(key), "must not be blank");
    }
    if (text.length() > maxLength) {
      throw SwarmErrors.invalidField(path(key), "must be at most " + maxLength + " characters");
    }
    return text;
  }

  /** An identifier: 1 to 128 letters, digits, '.', '_', ':', '@' or '-', starting with a letter or digit. */
  public String id(String key, boolean required) {
    String text = string(key, required, Limits.ID_LENGTH);
    if (text != null && !Limits.ID.matcher(text).matches()) {
      throw SwarmErrors.invalidField(path(key), Limits.ID_RULE);
    }
    return text;
  }

  public List<String> strings(String key, boolean required, int maxItems, int maxLength) {
    Object value = present(key, required);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray array)) {
      throw SwarmErrors.invalidField(path(key), "must be an array of strings");
    }
    if (array.size() > maxItems) {
      throw SwarmErrors.invalidField(path(key), "must have at most " + maxItems + " entries, got " + array.size());
    }
    List<String> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      Object item = array.getValue(i);
      String itemPath = path(key) + "[" + i + "]";
      if (!(item instanceof String text)) {
        throw SwarmErrors.invalidField(itemPath, "must be a string");
      }
      if (text.isBlank()) {
        throw SwarmErrors.invalidField(itemPath, "must not be blank");
      }
      if (text.length() > maxLength) {
        throw SwarmErrors.invalidField(itemPath, "must be at most " + maxLength + " characters");
      }
      out.add(text);
    }
    return out;
  }

  public List<String> ids(String key, boolean required, int maxItems) {
    List<String> values = strings(key, required, maxItems, Limits.ID_LENGTH);
    if (values != null) {
      for (int i = 0; i < values.size(); i++) {
        if (!Limits.ID.matcher(values.get(i)).matches()) {
          throw SwarmErrors.invalidField(path(key) + "[" + i + "]", Limits.ID_RULE);
        }
      }
    }
    return values;
  }

  public Long integer(String key, boolean required, long min, long max) {
    Object value = present(key, required);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number number) || !whole(number)) {
      throw SwarmErrors.invalidField(path(key), "must be a whole number");
    }
    BigDecimal exact = new BigDecimal(number.toString());
    if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw SwarmErrors.invalidField(path(key), "must be between " + min + " and " + max);
    }
    return exact.longValueExact();
  }

  public String oneOf(String key, boolean required, List<String> allowed) {
    String text = string(key, required, 64);
    if (text != null && !allowed.contains(text)) {
      throw SwarmErrors.invalidField(path(key), "must be one of " + String.join(", ", allowed) + ", got '" + text + "'");
    }
    return text;
  }

  // ---- sizes and formats only ---------------------------------------------------------------
  // What the protocol operations use: the database functions (swarm._str, _req_str, _str_array,
  // _int, _num, _bool, _enum, _obj, _ts) check JSON types, required members and enumerations for
  // every caller. These check only what the database does not: sizes, formats, ranges. A member of
  // another JSON type, or a missing one, is returned unchanged (null when absent) for the database
  // to reject.

  /** The member's object as fields, or null when it is absent or not an object (see {@link #raw}). */
  public JsonFields nested(String key) {
    return json.getValue(key) instanceof JsonObject nested ? new JsonFields(nested, path(key) + ".") : null;
  }

  /** A string of at most {@code maxLength} characters; any other value unchanged. */
  public Object sized(String key, int maxLength) {
    Object value = json.getValue(key);
    if (value instanceof String text && text.length() > maxLength) {
      throw SwarmErrors.invalidField(path(key), "must be at most " + maxLength + " characters");
    }
    return value;
  }

  /** A display name as {@link #name} checks it, when it is a string; any other value unchanged. */
  public Object displayName(String key) {
    Object value = sized(key, Limits.NAME);
    if (value instanceof String text) {
      TextRules.nameProblem(text, Limits.NAME).ifPresent(why -> {
        throw SwarmErrors.invalidField(path(key), why);
      });
    }
    return value;
  }

  /** An identifier ({@link Limits#ID}), when it is a string; any other value unchanged. */
  public Object idFormat(String key) {
    Object value = json.getValue(key);
    if (value instanceof String text && !Limits.ID.matcher(text).matches()) {
      throw SwarmErrors.invalidField(path(key), Limits.ID_RULE);
    }
    return value;
  }

  /**
   * A list of at most {@code maxItems} entries whose strings are not blank and at most
   * {@code maxLength} characters; a value that is not an array, and entries that are not strings, unchanged.
   */
  public Object sizedList(String key, int maxItems, int maxLength) {
    Object value = json.getValue(key);
    if (value instanceof JsonArray array) {
      if (array.size() > maxItems) {
        throw SwarmErrors.invalidField(path(key), "must have at most " + maxItems + " entries, got " + array.size());
      }
      for (int i = 0; i < array.size(); i++) {
        if (array.getValue(i) instanceof String text) {
          if (text.isBlank()) {
            throw SwarmErrors.invalidField(path(key) + "[" + i + "]", "must not be blank");
          }
          if (text.length() > maxLength) {
            throw SwarmErrors.invalidField(path(key) + "[" + i + "]", "must be at most " + maxLength + " characters");
          }
        }
      }
    }
    return value;
  }

  /** {@link #sizedList} of identifiers ({@link Limits#ID}). */
  public Object idList(String key, int maxItems) {
    Object value = sizedList(key, maxItems, Limits.ID_LENGTH);
    if (value instanceof JsonArray array) {
      for (int i = 0; i < array.size(); i++) {
        if (array.getValue(i) instanceof String text && !Limits.ID.matcher(text).matches()) {
          throw SwarmErrors.invalidField(path(key) + "[" + i + "]", Limits.ID_RULE);
        }
      }
    }
    return value;
  }

  /** A list of at most {@code maxItems} entries (what they are is the database's check); any other value unchanged. */
  public Object counted(String key, int maxItems) {
    Object value = json.getValue(key);
    if (value instanceof JsonArray array && array.size() > maxItems) {
      throw SwarmErrors.invalidField(path(key), "must have at most " + maxItems + " entries, got " + array.size());
    }
    return value;
  }

  /** A number of at most {@code max} (the lower bound is the database's check); any other value unchanged. */
  public Object atMost(String key, long max) {
    Object value = json.getValue(key);
    if (value instanceof Number number && Double.isFinite(number.doubleValue())
      && new BigDecimal(number.toString()).compareTo(BigDecimal.valueOf(max)) > 0) {
      throw SwarmErrors.invalidField(path(key), "must be at most " + max);
    }
    return value;
  }

  /** A number between {@code min} and {@code max}; any other value unchanged (whether it is whole is the database's check). */
  public Object within(String key, long min, long max) {
    Object value = json.getValue(key);
    if (value instanceof Number number && Double.isFinite(number.doubleValue())) {
      BigDecimal exact = new BigDecimal(number.toString());
      if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
        throw SwarmErrors.invalidField(path(key), "must be between " + min + " and " + max);
      }
    }
    return value;
  }

  private Object present(String key, boolean required) {
    Object value = json.getValue(key);
    if (value == null && required) {
      throw SwarmErrors.invalidField(path(key), "is required");
    }
    return value;
  }

  private static boolean whole(Number number) {
    if (number instanceof Integer || number instanceof Long || number instanceof Short || number instanceof BigInteger) {
      return true;
    }
    double d = number.doubleValue();
    return Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) <= 9_007_199_254_740_991d;
  }
}
