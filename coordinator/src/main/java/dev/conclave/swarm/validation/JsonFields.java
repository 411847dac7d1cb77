package dev.conclave.swarm.validation;

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
 * JSON {@code null} counts as absent. These serve the coordinator's own admin requests (task drafts,
 * bulk actions, schedules, operator commands); the protocol operations are checked by their SQL
 * ({@code swarm.check_<operation>} and the operation itself, in {@code R__swarm_op_<operation>.sql}).
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

  // ---- sizes and formats only --------------------------------------------------------------
  // What operator commands use (agents/AgentRequests.command): swarm.queue_command checks JSON types,
  // required members and the type's enumeration. These check only what it does not; a member of
  // another JSON type, or a missing one, is returned unchanged (null when absent) for it to reject.
  // (The protocol operations' sizes, formats and ranges are their SQL's: swarm.check_<operation>.)

  /** A string of at most {@code maxLength} characters; any other value unchanged. */
  public Object sized(String key, int maxLength) {
    Object value = json.getValue(key);
    if (value instanceof String text && text.length() > maxLength) {
      throw SwarmErrors.invalidField(path(key), "must be at most " + maxLength + " characters");
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
