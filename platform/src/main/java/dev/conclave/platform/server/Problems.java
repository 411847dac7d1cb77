package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes failures as RFC 9457 problem responses ({@code application/problem+json}). */
public final class Problems {

  private static final Logger LOG = LoggerFactory.getLogger(Problems.class);
  public static final String CONTENT_TYPE = "application/problem+json";

  private Problems() {
  }

  public static JsonObject body(ConclaveException e) {
    return new JsonObject()
      .put("type", "urn:conclave:problem:" + e.code())
      .put("title", title(e.kind()))
      .put("status", e.kind().httpStatus())
      .put("code", e.code())
      .put("detail", Failures.safeDetail(e.detail()));
  }

  /** Answers the request with the problem that {@code failure} stands for. */
  public static void send(RoutingContext ctx, Throwable failure) {
    send(ctx.response(), Failures.report(LOG, "http " + ctx.request().method() + " " + ctx.request().path(), failure));
  }

  public static void send(HttpServerResponse response, ConclaveException problem) {
    if (response.ended() || response.closed()) {
      return;
    }
    if (problem.kind() == ErrorKind.UNAUTHENTICATED) {
      response.putHeader("WWW-Authenticate", "Bearer realm=\"conclave\"");
    }
    response.setStatusCode(problem.kind().httpStatus())
      .putHeader("content-type", CONTENT_TYPE)
      .end(body(problem).encode());
  }

  private static String title(ErrorKind kind) {
    return switch (kind) {
      case INVALID_ARGUMENT -> "Invalid request";
      case UNAUTHENTICATED -> "Not authenticated";
      case PERMISSION_DENIED -> "Forbidden";
      case NOT_FOUND -> "Not found";
      case ALREADY_EXISTS -> "Already exists";
      case CONFLICT -> "Conflict";
      case FAILED_PRECONDITION -> "Not possible in the current state";
      case PAYLOAD_TOO_LARGE -> "Payload too large";
      case UNSUPPORTED_MEDIA -> "Unsupported media type";
      case RATE_LIMITED -> "Too many requests";
      case UNAVAILABLE -> "Temporarily unavailable";
      case DEADLINE_EXCEEDED -> "Timed out";
      case INTERNAL -> "Internal error";
    };
  }
}
