package dev.conclave.swarm.protocol;

import io.vertx.core.json.JsonObject;

/**
 * A protocol response as JSON text: on the hot path the text PostgreSQL wrote goes to the client as
 * it is, never parsed and written again; {@link #object()} parses it for those who need to look inside.
 */
public final class ProtocolReply {

  private final String json;

  private ProtocolReply(String json) {
    this.json = json;
  }

  public static ProtocolReply ofJson(String json) {
    return new ProtocolReply(json);
  }

  public static ProtocolReply of(JsonObject response) {
    return new ProtocolReply(response.encode());
  }

  /** The response, JSON text. */
  public String json() {
    return json;
  }

  /** The response, parsed. */
  public JsonObject object() {
    return new JsonObject(json);
  }
}
