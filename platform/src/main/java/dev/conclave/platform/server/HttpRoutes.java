package dev.conclave.platform.server;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.audit.AuditTargets;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.function.BiConsumer;

/**
 * Mounts authenticated HTTP routes under {@code /api/}: each declares its {@link Audience} and
 * {@link Resource} (recorded in the route table), the audience is enforced before the handler, and
 * the handler's JSON result or failure ({@code application/problem+json}) is written for it.
 */
public final class HttpRoutes {

  /** A handler: the verified caller and the request in, a JSON body (or failure) out. */
  @FunctionalInterface
  public interface Handler {
    Future<JsonObject> handle(Caller caller, RoutingContext ctx);
  }

  private final Router router;
  private final EdgeSecurity edge;
  private final BiConsumer<RoutingContext, Throwable> problems;

  public HttpRoutes(Router router, EdgeSecurity edge) {
    this(router, edge, Problems::send);
  }

  /** Routes whose failures (a refused audience included) are written by {@code problems}, for a service's own error shape. */
  public HttpRoutes(Router router, EdgeSecurity edge, BiConsumer<RoutingContext, Throwable> problems) {
    this.router = router;
    this.edge = edge;
    this.problems = problems;
  }

  public void get(String path, Audience audience, Resource resource, Handler handler) {
    route(HttpMethod.GET, path, audience, resource, 200, handler);
  }

  public void post(String path, Audience audience, Resource resource, int status, Handler handler) {
    route(HttpMethod.POST, path, audience, resource, status, handler);
  }

  public void put(String path, Audience audience, Resource resource, Handler handler) {
    route(HttpMethod.PUT, path, audience, resource, 200, handler);
  }

  public void delete(String path, Audience audience, Resource resource, Handler handler) {
    route(HttpMethod.DELETE, path, audience, resource, 200, handler);
  }

  /**
   * A route whose handler writes the response itself (for example the swarm protocol's replies);
   * the audience is still checked and the route still declared.
   */
  public void raw(HttpMethod method, String path, Audience audience, Resource resource, io.vertx.core.Handler<RoutingContext> handler) {
    raw(method, path, audience, resource, AuditTargets.audited(method), handler);
  }

  /**
   * A raw route that says whether its successes are audited: high-volume protocol operations
   * (heartbeats, claims, progress) are not, though their refusals (401, 403) and 5xx failures are.
   */
  public void raw(HttpMethod method, String path, Audience audience, Resource resource, boolean auditSuccesses,
                  io.vertx.core.Handler<RoutingContext> handler) {
    edge.routes().http(method.name(), path, audience, resource);
    boolean audited = auditSuccesses;
    router.route(method, path).handler(ctx -> {
      Caller caller = HttpAuthHandler.caller(ctx);
      try {
        audience.check(caller, method.name() + " " + path);
      } catch (RuntimeException e) {
        edge.audit(caller, "http " + method.name() + " " + path, ctx.request().path(), e, remote(ctx));
        problems.accept(ctx, e);
        return;
      }
      ctx.addEndHandler(v -> {
        int code = ctx.response().getStatusCode();
        if (audited || code == 401 || code == 403 || code >= 500) {
          edge.audit(caller, "http " + method.name() + " " + path, ctx.request().path(), code < 400 ? null : statusFailure(code), remote(ctx));
        }
      });
      handler.handle(ctx);
    });
  }

  private static String remote(RoutingContext ctx) {
    return ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().toString();
  }

  /** A failure standing for an HTTP error status a raw handler wrote (for the audit outcome). */
  private static Throwable statusFailure(int status) {
    ErrorKind kind = status == 401 ? ErrorKind.UNAUTHENTICATED : status == 403 ? ErrorKind.PERMISSION_DENIED : ErrorKind.INVALID_ARGUMENT;
    return new ConclaveException(kind, "http_" + status, "status " + status);
  }

  private void route(HttpMethod method, String path, Audience audience, Resource resource, int status, Handler handler) {
    edge.routes().http(method.name(), path, audience, resource);
    boolean audited = AuditTargets.audited(method);
    router.route(method, path).handler(ctx -> {
      Future<JsonObject> result;
      Caller caller = HttpAuthHandler.caller(ctx);
      boolean admitted = false;
      try {
        audience.check(caller, method.name() + " " + path);
        admitted = true;
        result = handler.handle(caller, ctx);
      } catch (RuntimeException e) {
        result = Future.failedFuture(e);
      }
      boolean record = audited || !admitted;
      result.onComplete(ar -> {
        if (record) {
          edge.audit(caller, "http " + method.name() + " " + path, ctx.request().path(), ar.failed() ? ar.cause() : null, remote(ctx));
        }
        if (ar.succeeded()) {
          ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(ar.result().encode());
        } else {
          problems.accept(ctx, ar.cause());
        }
      });
    });
  }
}
