package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.control.Cancellation;
import dev.conclave.gateway.control.Injections;
import dev.conclave.gateway.directory.AgentDirectory;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.platform.server.JsonBodies;
import dev.conclave.proto.coven.InjectionPriority;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The gateway's HTTP API under {@code /api/v1/gateway} (authenticated by the platform like every
 * {@code /api} route): what ClientService has no RPC for (cancel, inject), plus request status,
 * usage totals and agent listing, each for the agents the caller may act on. Documented in docs/gateway.md.
 */
public final class GatewayHttpApi {

  public static final String BASE = "/api/v1/gateway";

  private final Cancellation cancellation;
  private final Injections injections;
  private final InjectionStore injectionStore;
  private final RequestStore requests;
  private final UsageStore usage;
  private final AgentDirectory directory;
  private final ConversationAccess conversations;
  private final AgentAccess access;

  public GatewayHttpApi(Cancellation cancellation, Injections injections, InjectionStore injectionStore, RequestStore requests,
                        UsageStore usage, AgentDirectory directory, ConversationAccess conversations) {
    this.cancellation = cancellation;
    this.injections = injections;
    this.injectionStore = injectionStore;
    this.requests = requests;
    this.usage = usage;
    this.directory = directory;
    this.conversations = conversations;
    this.access = conversations.agents();
  }

  public void mount(HttpRoutes routes) {
    routes.post(BASE + "/requests/:id/cancel", Audience.MEMBERS, Resource.AGENT, 200, (caller, ctx) -> {
      UUID id = uuid(ctx.pathParam("id"), "request id");
      String reason = body(ctx).getString("reason", "user_requested");
      return visibleRequest(caller, id).compose(r -> cancellation.cancel(caller, r, reason)).map(o -> new JsonObject()
        .put("requestId", o.requestId().toString()).put("state", o.state()).put("agentAsked", o.pending()));
    });
    routes.get(BASE + "/requests/:id", Audience.MEMBERS, Resource.AGENT, (caller, ctx) -> {
      UUID id = uuid(ctx.pathParam("id"), "request id");
      return visibleRequest(caller, id).compose(r -> usage.toolsOf(id).map(tools -> requestJson(r).put("tools", tools)));
    });
    routes.post(BASE + "/agents/:agentId/inject", Audience.MEMBERS, Resource.AGENT, 202, (caller, ctx) -> {
      JsonObject body = body(ctx);
      String agentId = ctx.pathParam("agentId");
      InjectionPriority priority = priority(body.getString("priority", "normal"));
      return access.require(caller, agentId)
        .compose(v -> injections.inject(caller, agentId, body.getString("content", ""), priority, Optional.ofNullable(body.getString("source"))))
        .map(sent -> new JsonObject().put("injectionId", sent.injectionId().toString()).put("agentId", sent.agentId()).put("state", "sent"));
    });
    routes.get(BASE + "/injections/:id", Audience.MEMBERS, Resource.AGENT, (caller, ctx) -> {
      UUID id = uuid(ctx.pathParam("id"), "injection id");
      return injectionStore.find(id).compose(found -> found.isEmpty() ? Future.failedFuture(GatewayErrors.injectionNotFound(id.toString()))
        : access.require(caller, found.get().getString("agentId")).map(found.get())
          .recover(err -> Future.failedFuture(GatewayErrors.injectionNotFound(id.toString()))));
    });
    routes.get(BASE + "/usage/agents/:agentId", Audience.MEMBERS, Resource.AGENT, (caller, ctx) ->
      access.require(caller, ctx.pathParam("agentId")).compose(v -> usage.totals(true, ctx.pathParam("agentId"))));
    routes.get(BASE + "/usage/conversations/:key", Audience.MEMBERS, Resource.AGENT, (caller, ctx) ->
      conversations.require(caller, ctx.pathParam("key")).compose(v -> usage.totals(false, ctx.pathParam("key"))));
    routes.get(BASE + "/agents", Audience.MEMBERS, Resource.AGENT, (caller, ctx) ->
      directory.list(caller, Optional.ofNullable(ctx.queryParams().get("workspace"))).compose(agents -> directory.online()
        .compose(online -> requests.allInFlight().map(inFlight -> {
        JsonArray out = new JsonArray();
        agents.forEach(a -> {
          JsonObject json = new JsonObject().put("agentId", a.getId()).put("name", a.getName()).put("backend", a.getBackend())
            .put("workingDir", a.getWorkingDir()).put("connected", a.getConnected())
            .put("workspaces", new JsonArray(a.getMetadata().getWorkspacesList()));
          var session = online.get(a.getId());
          if (session != null) {
            json.put("node", session.node()).put("capabilities", new JsonArray(session.capabilities()))
              .put("features", new JsonArray(session.features())).put("connectedAt", session.connectedAt().toString());
          }
          UUID request = inFlight.get(a.getId());
          if (request != null) {
            json.put("requestInFlight", request.toString());
          }
          out.add(json);
        });
        return new JsonObject().put("agents", out);
      }))));
  }

  /**
   * A request the caller may see: one it sent, or one of an agent it may act on. Anything else is
   * reported as not found, so request ids of other people's work reveal nothing.
   */
  private Future<RequestRecord> visibleRequest(Caller caller, UUID id) {
    return requests.find(id).compose(found -> {
      if (found.isEmpty()) {
        return Future.failedFuture(GatewayErrors.requestNotFound(id.toString()));
      }
      RequestRecord r = found.get();
      if (r.principalId().equals(caller.principalId())) {
        return Future.succeededFuture(r);
      }
      return access.require(caller, r.agentId()).map(r).recover(err -> Future.failedFuture(GatewayErrors.requestNotFound(id.toString())));
    });
  }

  static JsonObject body(RoutingContext ctx) {
    return JsonBodies.object(ctx);
  }

  static UUID uuid(String value, String what) {
    if (value == null) {
      // a field present as JSON null: Vert.x's getString(key, default) answers null for it, not the default
      throw GatewayErrors.invalid(what, "is required (a UUID)");
    }
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.invalid(what, "must be a UUID, got '" + value + "'");
    }
  }

  private static InjectionPriority priority(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "immediate" -> InjectionPriority.INJECTION_PRIORITY_IMMEDIATE;
      case "normal" -> InjectionPriority.INJECTION_PRIORITY_NORMAL;
      case "deferred" -> InjectionPriority.INJECTION_PRIORITY_DEFERRED;
      default -> throw GatewayErrors.invalid("priority", "must be immediate, normal or deferred, got '" + value + "'");
    };
  }

  private static JsonObject requestJson(RequestRecord r) {
    DateTimeFormatter iso = DateTimeFormatter.ISO_INSTANT;
    JsonObject json = new JsonObject()
      .put("requestId", r.id().toString())
      .put("agentId", r.agentId())
      .put("conversationKey", r.conversationKey())
      .put("state", r.state().id())
      .put("createdAt", iso.format(r.createdAt()))
      .put("approveAll", r.approveAll());
    r.dispatchedAt().ifPresent(t -> json.put("dispatchedAt", iso.format(t)));
    r.finishedAt().ifPresent(t -> json.put("finishedAt", iso.format(t)));
    r.dispatchNode().ifPresent(n -> json.put("node", n));
    r.cancelReason().ifPresent(c -> json.put("cancelReason", c));
    return json;
  }
}
