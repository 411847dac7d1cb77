package dev.conclave.swarm.api;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/** Reading HTTP requests: JSON bodies, path members, the client's address. */
final class Requests {

  private Requests() {
  }

  /** The body as a JSON object; an empty body is {} when {@code emptyAllowed}. */
  static JsonObject body(RoutingContext ctx, boolean emptyAllowed) {
    Buffer buffer = ctx.body() == null ? null : ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      if (emptyAllowed) {
        return new JsonObject();
      }
      throw SwarmErrors.invalidField("body", "must be a JSON object");
    }
    Object value;
    try {
      value = Json.decodeValue(buffer);
    } catch (DecodeException e) {
      throw SwarmErrors.invalidField("body", "is not valid JSON");
    }
    if (!(value instanceof JsonObject object)) {
      throw SwarmErrors.invalidField("body", "must be a JSON object");
    }
    return object;
  }

  /** Puts a path parameter into the body; a body that names a different value is rejected. */
  static JsonObject withPathMember(JsonObject body, String member, String pathValue) {
    Object given = body.getValue(member);
    if (given != null && !pathValue.equals(given)) {
      throw SwarmErrors.invalidField(member, "is '" + given + "' but the path names '" + pathValue + "'");
    }
    return body.put(member, pathValue);
  }

  /**
   * The client's IP: the socket's peer, or, when the coordinator runs behind a proxy it trusts, the
   * last X-Forwarded-For entry (the one that proxy added).
   */
  static String clientIp(RoutingContext ctx, boolean trustForwardedFor) {
    if (trustForwardedFor) {
      String forwarded = ctx.request().getHeader("X-Forwarded-For");
      if (forwarded != null && !forwarded.isBlank()) {
        String[] hops = forwarded.split(",");
        return hops[hops.length - 1].trim();
      }
    }
    SocketAddress peer = ctx.request().remoteAddress();
    return peer == null ? "unknown" : peer.hostAddress();
  }
}
