package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The one reading of an HTTP request's JSON body: a JSON object, or {} when there is no body. Not
 * JSON, or JSON that is not an object (an array, a number, a string), is {@code INVALID_ARGUMENT
 * body_invalid}, never a server error. A top-level field given as JSON {@code null} is as if it were
 * absent: Vert.x's {@code getString(key, default)} answers null for it rather than the default, and
 * handlers written for absent fields failed on it.
 */
public final class JsonBodies {

  private JsonBodies() {
  }

  public static JsonObject object(RoutingContext ctx) {
    if (ctx.body() == null || ctx.body().buffer() == null || ctx.body().buffer().length() == 0) {
      return new JsonObject();
    }
    Object value;
    try {
      value = Json.decodeValue(ctx.body().buffer());
    } catch (DecodeException e) {
      throw ConclaveException.invalid("body_invalid", "the body is not valid JSON");
    }
    if (value instanceof JsonObject object) {
      object.getMap().values().removeIf(java.util.Objects::isNull);
      return object;
    }
    throw ConclaveException.invalid("body_invalid", "the body must be a JSON object, got " + kind(value));
  }

  private static String kind(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof io.vertx.core.json.JsonArray) {
      return "an array";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Boolean) {
      return "a boolean";
    }
    return "a number";
  }
}
