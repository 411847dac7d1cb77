package dev.conclave.swarm.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.agents.AgentRequests;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.store.AgentStore;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.Clock;
import java.util.List;

/**
 * Agents for operators (admin callers): list, read, and queue a heartbeat command (SHUTDOWN,
 * RELEASE_TASK or PING). And the learnings search, open to any authenticated caller.
 */
final class AgentRoutes {

  private final AgentStore store;
  private final Clock clock;
  private final Runnable onStateChange;

  AgentRoutes(AgentStore store, Clock clock, Runnable onStateChange) {
    this.store = store;
    this.clock = clock;
    this.onStateChange = onStateChange;
  }

  void bind(HttpRoutes router) {
    router.raw(HttpMethod.GET, "/api/v1/agents", Audience.ADMINS, Resource.NONE, ctx -> reply(ctx, 200, () -> {
      String status = ctx.queryParams().get("status");
      JsonFields.of(new JsonObject().put("status", status)).oneOf("status", false, Vocabulary.STORED_AGENT_STATUSES);
      return store.list(status).map(agents -> new JsonObject().put("agents", agents));
    }));
    router.raw(HttpMethod.GET, "/api/v1/agents/:id", Audience.ADMINS, Resource.NONE, ctx -> reply(ctx, 200, () -> store.get(ctx.pathParam("id"))
      .compose(found -> found.map(Future::succeededFuture)
        .orElseGet(() -> Future.failedFuture(SwarmErrors.agentNotRegistered(ctx.pathParam("id")))))));
    router.raw(HttpMethod.POST, "/api/v1/agents/:id/commands", Audience.ADMINS, Resource.NONE, ctx -> reply(ctx, 202, () -> {
      JsonObject command = AgentRequests.command(JsonFields.of(Requests.body(ctx, false)));
      return store.queueCommand(ctx.pathParam("id"), command, clock.instant())
        .map(queued -> {
          onStateChange.run();
          return new JsonObject().put("queued", true).put("agentId", ctx.pathParam("id")).put("command", queued);
        });
    }));
    router.raw(HttpMethod.GET, "/api/v1/learnings", Audience.ANY_PRINCIPAL, Resource.NONE, ctx -> reply(ctx, 200, () -> {
      JsonObject params = new JsonObject().put("q", ctx.queryParams().get("q"));
      String limit = ctx.queryParams().get("limit");
      if (limit != null) {
        try {
          params.put("limit", Long.parseLong(limit.trim()));
        } catch (NumberFormatException e) {
          throw SwarmErrors.invalidField("limit", "must be a whole number");
        }
      }
      JsonFields fields = JsonFields.of(params);
      String q = fields.string("q", true, 500);
      Long n = fields.integer("limit", false, 1, 100);
      return store.searchLearnings(q, n == null ? 20 : n.intValue()).map(found -> new JsonObject().put("learnings", found));
    }));
  }

  private interface Action {
    Future<?> run();
  }

  private static void reply(RoutingContext ctx, int status, Action action) {
    try {
      action.run().onComplete(ar -> {
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
