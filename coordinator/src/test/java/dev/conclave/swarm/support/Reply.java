package dev.conclave.swarm.support;

import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** An HTTP answer as a test sees it. */
public record Reply(int status, MultiMap headers, String text) {

  public JsonObject json() {
    return new JsonObject(text);
  }

  public JsonArray array(String member) {
    return json().getJsonArray(member);
  }

  public String code() {
    return json().getString("code");
  }

  public String contentType() {
    return headers.get("content-type");
  }

  @Override
  public String toString() {
    return status + " " + text;
  }
}
