package dev.conclave.swarm.api;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.server.Problems;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.errors.SwarmProblem;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;

/**
 * Writes swarm HTTP answers: JSON responses, and problems ({@code application/problem+json}) that also
 * carry the spec's {@code success: false} and {@code error}, plus the problem's extension members
 * (e.g. {@code field}). A rate-limited answer has a {@code Retry-After} header (seconds).
 */
final class Replies {

  private static final Logger LOG = LoggerFactory.getLogger(Replies.class);
  private static final Set<String> STANDARD = Set.of("type", "title", "status", "code", "detail", "success", "error");

  private Replies() {
  }

  static void json(RoutingContext ctx, int status, Object body) {
    HttpServerResponse response = ctx.response();
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("content-type", "application/json").end(Json.encode(body));
  }

  /** A JSON body already written (a protocol response as the database wrote it). */
  static void jsonText(RoutingContext ctx, int status, String json) {
    HttpServerResponse response = ctx.response();
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("content-type", "application/json").end(json);
  }

  static void problem(RoutingContext ctx, Throwable failure) {
    ConclaveException problem = Failures.report(LOG, "swarm " + ctx.request().method() + " " + ctx.request().path(), SwarmErrors.fromSql(failure));
    HttpServerResponse response = ctx.response();
    if (response.ended() || response.closed()) {
      return;
    }
    JsonObject body = Problems.body(problem).put("success", false).put("error", Failures.safeDetail(problem.detail()));
    if (problem instanceof SwarmProblem swarm) {
      swarm.extensions().forEach(e -> {
        if (!STANDARD.contains(e.getKey())) {
          body.put(e.getKey(), e.getValue());
        }
      });
      if (problem.kind() == ErrorKind.RATE_LIMITED) {
        response.putHeader("Retry-After", String.valueOf(swarm.retryAfterSeconds()));
      }
    }
    if (problem.kind() == ErrorKind.UNAUTHENTICATED) {
      response.putHeader("WWW-Authenticate", "Bearer realm=\"conclave\"");
    }
    response.setStatusCode(problem.kind().httpStatus()).putHeader("content-type", Problems.CONTENT_TYPE).end(body.encode());
  }
}
