package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.validation.TextRules;
import io.vertx.ext.web.RoutingContext;

/**
 * What every HTTP request must look like before anything reads it. Its path and query must be
 * valid percent-encoding: a stray {@code %} made the router or a handler throw (a 400 in plain text
 * with a stack trace in the log, or a 500). A request's body must not be a form (multipart or
 * URL-encoded): every route that reads a body ({@code /api/}, sign-in, MCP) takes JSON, and Netty's
 * form decoder failed with 500s on bodies it could not parse. The event-bus bridge is left alone:
 * SockJS reads its own transports' bodies. A request that breaks a rule is refused with a problem response, never
 * passed on.
 */
final class RequestShape {

  private RequestShape() {
  }

  /** Whether the request's URI decodes; if not, it has been answered (400 {@code uri_invalid}). */
  static boolean admit(io.vertx.core.http.HttpServerRequest request) {
    try {
      io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(request.uri());
      return true;
    } catch (IllegalArgumentException e) {
      ConclaveException refusal = ConclaveException.invalid("uri_invalid", "the request's path or query is not valid percent-encoding");
      dev.conclave.platform.errors.BadInputLog.refused("http " + request.method(), refusal);
      Problems.send(request.response(), refusal);
      return false;
    }
  }

  static void check(RoutingContext ctx) {
    if (ctx.request().path().startsWith(dev.conclave.platform.bridge.EventBusBridge.PATH + "/")) {
      ctx.next();
      return;
    }
    String type = ctx.request().getHeader("content-type");
    String media = type == null ? "" : type.toLowerCase(java.util.Locale.ROOT);
    if (media.startsWith("multipart/") || media.startsWith("application/x-www-form-urlencoded")) {
      Problems.send(ctx, new ConclaveException(ErrorKind.UNSUPPORTED_MEDIA, "media_type_unsupported",
        "request bodies are JSON (application/json), not " + TextRules.echo(type.split(";")[0])));
      return;
    }
    ctx.next();
  }
}
