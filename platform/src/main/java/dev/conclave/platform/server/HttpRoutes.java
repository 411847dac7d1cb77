package dev.conclave.platform.server;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
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
    edge.routes().http(method.name(), path, audience, resource);
    router.route(method, path).handler(ctx -> {
      try {
        audience.check(HttpAuthHandler.caller(ctx), method.name() + " " + path);
      } catch (RuntimeException e) {
        problems.accept(ctx, e);
        return;
      }
      handler.handle(ctx);
    });
  }

  private void route(HttpMethod method, String path, Audience audience, Resource resource, int status, Handler handler) {
    edge.routes().http(method.name(), path, audience, resource);
    router.route(method, path).handler(ctx -> {
      Future<JsonObject> result;
      try {
        Caller caller = HttpAuthHandler.caller(ctx);
        audience.check(caller, method.name() + " " + path);
        result = handler.handle(caller, ctx);
      } catch (RuntimeException e) {
        result = Future.failedFuture(e);
      }
      result.onComplete(ar -> {
        if (ar.succeeded()) {
          ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(ar.result().encode());
        } else {
          problems.accept(ctx, ar.cause());
        }
      });
    });
  }
}
