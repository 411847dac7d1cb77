package dev.conclave.node.access;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one JSON style of every HTTP answer (README, "The JSON style"): {@code application/json}
 * ({@code application/problem+json} for a failure), compactly encoded (no whitespace outside
 * strings), every member name camelCase, except inside the few maps whose keys are the caller's own
 * data, which a route declares by their place in its answer.
 */
final class JsonStyle {

  static final Pattern CAMEL_CASE = Pattern.compile("^[a-z][a-zA-Z0-9]*$");
  /** A value that is a point in time, however written. */
  private static final Pattern TIMESTAMP = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}.*");
  /** A point in time as every answer writes it: ISO-8601, in UTC. */
  private static final Pattern UTC = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$");

  private JsonStyle() {
  }

  /**
   * What is wrong with one answer; empty when it follows the style. {@code userKeyed}: the places
   * (as {@link #place} writes them, {@code tasks[].metadata}) whose values are maps keyed by user data.
   * {@code otherTimeNames}: names of points in time that another specification chose (a point in time
   * is otherwise named {@code at} or {@code …At}). {@code ids}: ids of things the caller knows (a
   * principal's, an agent's) and the name each goes by ({@code principalId}, {@code agentId}), which a
   * bare {@code id} does not say. {@code specIds}: the places ({@code agents[].id}) where another
   * specification names such an id a bare {@code id}. The user-keyed places and the spec-named ids
   * met are added to {@code met}.
   */
  static List<String> check(int status, String contentType, String body, Set<String> userKeyed, Set<String> otherTimeNames,
                            Map<String, String> ids, Set<String> specIds, Set<String> met) {
    List<String> wrong = new ArrayList<>();
    if (body == null || body.isEmpty()) {
      return wrong;
    }
    String type = contentType == null ? "" : contentType.split(";", 2)[0].trim();
    String expected = status >= 400 ? "application/problem+json" : "application/json";
    if (!type.equals(expected)) {
      wrong.add("content-type " + (type.isEmpty() ? "missing" : type) + ", not " + expected);
      if (!type.endsWith("json")) {
        return wrong;
      }
    }
    Object parsed;
    try {
      parsed = Json.decodeValue(body);
    } catch (DecodeException e) {
      wrong.add("not JSON: " + e.getMessage());
      return wrong;
    }
    int spaced = whitespaceOutsideStrings(body);
    if (spaced >= 0) {
      wrong.add("not compact: whitespace after '" + body.substring(Math.max(0, spaced - 16), spaced) + "'");
    }
    new Walk(userKeyed, otherTimeNames, ids, specIds, wrong, met).value(parsed, "", null);
    // an array's items repeat the same mistake: say it once
    return new ArrayList<>(new java.util.LinkedHashSet<>(wrong));
  }

  /** Where the first whitespace character outside a string is, or -1. */
  static int whitespaceOutsideStrings(String json) {
    boolean inString = false;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        return i;
      }
    }
    return -1;
  }

  /** A member's place: {@code agents[].metadata} for the metadata of each of the answer's agents. */
  static String place(String parent, String key) {
    return parent.isEmpty() ? key : parent + "." + key;
  }

  /** The walk through one answer, reporting into {@code wrong}. */
  private record Walk(Set<String> userKeyed, Set<String> otherTimeNames, Map<String, String> ids, Set<String> specIds,
                      List<String> wrong, Set<String> met) {

    void value(Object value, String at, String name) {
      if (value instanceof Map<?, ?> map) {
        value = new JsonObject(castMap(map));
      } else if (value instanceof List<?> list) {
        value = new JsonArray(list);
      }
      if (value instanceof JsonObject object) {
        if (userKeyed.contains(at)) {
          met.add(at);
          return;
        }
        for (Map.Entry<String, Object> e : object) {
          String here = place(at, e.getKey());
          if (!CAMEL_CASE.matcher(e.getKey()).matches()) {
            wrong.add("member '" + here + "' is not camelCase");
          }
          value(e.getValue(), here, e.getKey());
        }
      } else if (value instanceof JsonArray array) {
        for (Object item : array) {
          value(item, at + "[]", name);
        }
      } else if (value instanceof String text && "id".equals(name) && ids.containsKey(text)) {
        if (specIds.contains(at)) {
          met.add(at);
        } else {
          wrong.add("member '" + at + "' is " + ids.get(text) + " everywhere else");
        }
      } else if (value instanceof String text && TIMESTAMP.matcher(text).matches()) {
        if (!UTC.matcher(text).matches()) {
          wrong.add("point in time '" + at + "' is not ISO-8601 in UTC (…Z): " + text);
        }
        if (name != null && !name.equals("at") && !name.endsWith("At") && !otherTimeNames.contains(name)) {
          wrong.add("point in time '" + at + "' is not named 'at' or '…At'");
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> map) {
    return (Map<String, Object>) map;
  }
}
