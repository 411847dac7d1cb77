package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.validation.TextRules;
import io.vertx.ext.web.RoutingContext;

/**
 * What every {@code /api/} request must look like before anything reads it: a query string that
 * decodes (a stray {@code %} made Vert.x throw from inside a handler, a 500), and a body that is not
 * multipart (the API takes JSON; a multipart body is parsed by nothing here). A request that breaks
 * either is refused with a problem response, never passed on.
 */
final class RequestShape {

  private RequestShape() {
  }

  static void check(RoutingContext ctx) {
    try {
      ctx.queryParams();
      ctx.request().params();
    } catch (RuntimeException e) {
      Problems.send(ctx, ConclaveException.invalid("query_invalid", "the query string is not valid percent-encoding"));
      return;
    }
    String type = ctx.request().getHeader("content-type");
    if (type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/")) {
      Problems.send(ctx, new ConclaveException(ErrorKind.UNSUPPORTED_MEDIA, "media_type_unsupported",
        "the API takes JSON bodies (application/json), not " + TextRules.echo(type.split(";")[0])));
      return;
    }
    ctx.next();
  }
}
