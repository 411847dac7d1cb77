package dev.conclave.swarm.validation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/** Builds a normalized JSON object, leaving out absent (null) members. */
public final class JsonOut {

  private final JsonObject json = new JsonObject();

  public static JsonOut object() {
    return new JsonOut();
  }

  public JsonOut put(String key, Object value) {
    if (value instanceof JsonOut nested) {
      json.put(key, nested.json());
    } else if (value instanceof List<?> list) {
      json.put(key, new JsonArray(new ArrayList<>(list)));
    } else if (value != null) {
      json.put(key, value);
    }
    return this;
  }

  public JsonObject json() {
    return json;
  }
}
