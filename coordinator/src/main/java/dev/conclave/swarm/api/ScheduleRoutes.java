package dev.conclave.swarm.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.schedules.ScheduleDrafts;
import dev.conclave.swarm.store.ScheduleStore;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.Clock;
import java.util.function.Supplier;

/** Schedules (periodic tasks) for operators (admin callers): create, list, read, delete. */
final class ScheduleRoutes {

  /** The most schedules a list answers. */
  static final int LIST_LIMIT = 1000;

  private final ScheduleStore store;
  private final Clock clock;

  ScheduleRoutes(ScheduleStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  void bind(HttpRoutes router) {
    router.raw(HttpMethod.POST, "/api/v1/schedules", Audience.ADMINS, Resource.NONE, ctx -> answer(ctx, 201, () -> {
      var draft = ScheduleDrafts.of(Requests.body(ctx, false), clock.instant());
      return store.create(draft, clock.instant()).compose(made -> made.map(Future::succeededFuture)
        .orElseGet(() -> Future.failedFuture(SwarmErrors.scheduleAlreadyExists(draft.name()))));
    }));
    router.raw(HttpMethod.GET, "/api/v1/schedules", Audience.ADMINS, Resource.NONE, ctx -> answer(ctx, 200, () ->
      store.list(LIST_LIMIT).map(all -> new JsonObject().put("schedules", all))));
    router.raw(HttpMethod.GET, "/api/v1/schedules/:name", Audience.ADMINS, Resource.NONE, ctx -> answer(ctx, 200, () ->
      store.get(ctx.pathParam("name")).compose(found -> found.map(Future::succeededFuture)
        .orElseGet(() -> Future.failedFuture(SwarmErrors.scheduleNotFound(ctx.pathParam("name")))))));
    router.raw(HttpMethod.DELETE, "/api/v1/schedules/:name", Audience.ADMINS, Resource.NONE, ctx -> answer(ctx, 200, () ->
      store.delete(ctx.pathParam("name")).compose(gone -> gone.map(Future::succeededFuture)
        .orElseGet(() -> Future.failedFuture(SwarmErrors.scheduleNotFound(ctx.pathParam("name")))))));
  }

  private static void answer(RoutingContext ctx, int status, Supplier<Future<?>> action) {
    try {
      action.get().onComplete(ar -> {
        if (ar.succeeded()) {
          Replies.json(ctx, status, ar.result());
        } else {
          Replies.problem(ctx, ar.cause());
        }
      });
    } catch (RuntimeException e) {
      Replies.problem(ctx, e);
    }
  }
}
