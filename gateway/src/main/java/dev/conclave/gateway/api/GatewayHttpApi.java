package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.control.Cancellation;
import dev.conclave.gateway.control.Injections;
import dev.conclave.gateway.directory.AgentDirectory;
import dev.conclave.gateway.mailbox.RequestRecord;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.Problems;
import dev.conclave.proto.coven.InjectionPriority;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The gateway's HTTP API under {@code /api/v1/gateway} (authenticated by the platform like every
 * {@code /api} route): what ClientService has no RPC for (cancel, inject), plus request status,
 * usage totals, agent listing, and principals (create, issue a token, approve). Documented in docs/gateway.md.
 */
public final class GatewayHttpApi {

  public static final String BASE = "/api/v1/gateway";

  private final Cancellation cancellation;
  private final Injections injections;
  private final InjectionStore injectionStore;
  private final RequestStore requests;
  private final UsageStore usage;
  private final AgentDirectory directory;
  private final PrincipalStore principals;
  private final TokenService tokens;

  public GatewayHttpApi(Cancellation cancellation, Injections injections, InjectionStore injectionStore, RequestStore requests,
                        UsageStore usage, AgentDirectory directory, PrincipalStore principals, TokenService tokens) {
    this.cancellation = cancellation;
    this.injections = injections;
    this.injectionStore = injectionStore;
    this.requests = requests;
    this.usage = usage;
    this.directory = directory;
    this.principals = principals;
    this.tokens = tokens;
  }

  public void mount(Router router) {
    router.post(BASE + "/requests/:id/cancel").handler(ctx -> respond(ctx, 200, caller -> {
      UUID id = uuid(ctx.pathParam("id"), "request id");
      String reason = body(ctx).getString("reason", "user_requested");
      return cancellation.cancel(caller, id, reason).map(o -> new JsonObject()
        .put("requestId", o.requestId().toString()).put("state", o.state()).put("agentAsked", o.pending()));
    }));
    router.get(BASE + "/requests/:id").handler(ctx -> respond(ctx, 200, caller -> {
      UUID id = uuid(ctx.pathParam("id"), "request id");
      return requests.find(id).compose(found -> {
        RequestRecord r = found.filter(x -> caller.isAdmin() || x.principalId().equals(caller.principalId()))
          .orElseThrow(() -> GatewayErrors.requestNotFound(id.toString()));
        return usage.toolsOf(id).map(tools -> requestJson(r).put("tools", tools));
      });
    }));
    router.post(BASE + "/agents/:agentId/inject").handler(ctx -> respond(ctx, 202, caller -> {
      Access.requireMember(caller);
      JsonObject body = body(ctx);
      return injections.inject(caller, ctx.pathParam("agentId"), body.getString("content", ""),
          priority(body.getString("priority", "normal")), Optional.ofNullable(body.getString("source")))
        .map(sent -> new JsonObject().put("injectionId", sent.injectionId().toString()).put("agentId", sent.agentId()).put("state", "sent"));
    }));
    router.get(BASE + "/injections/:id").handler(ctx -> respond(ctx, 200, caller -> {
      UUID id = uuid(ctx.pathParam("id"), "injection id");
      return injectionStore.find(id).map(found -> found.orElseThrow(() ->
        dev.conclave.platform.errors.ConclaveException.notFound("injection_not_found", "no injection " + id)));
    }));
    router.get(BASE + "/usage/agents/:agentId").handler(ctx -> respond(ctx, 200, caller -> {
      Access.requireMember(caller);
      return usage.totals(true, ctx.pathParam("agentId"));
    }));
    router.get(BASE + "/usage/conversations/:key").handler(ctx -> respond(ctx, 200, caller -> {
      Access.requireMember(caller);
      return usage.totals(false, ctx.pathParam("key"));
    }));
    router.get(BASE + "/agents").handler(ctx -> respond(ctx, 200, caller -> {
      Access.requireMember(caller);
      return directory.list(Optional.ofNullable(ctx.queryParams().get("workspace"))).map(agents -> {
        JsonArray out = new JsonArray();
        agents.forEach(a -> out.add(new JsonObject().put("id", a.getId()).put("name", a.getName()).put("backend", a.getBackend())
          .put("workingDir", a.getWorkingDir()).put("connected", a.getConnected())
          .put("workspaces", new JsonArray(a.getMetadata().getWorkspacesList()))));
        return new JsonObject().put("agents", out);
      });
    }));
    router.post(BASE + "/principals").handler(ctx -> respond(ctx, 201, caller -> {
      caller.requireAdmin();
      JsonObject body = body(ctx);
      PrincipalType type = PrincipalType.of(body.getString("type", "")).orElseThrow(() ->
        GatewayErrors.invalid("type", "must be one of client, agent, pack, got '" + body.getString("type", "") + "'"));
      String name = body.getString("displayName", "");
      if (name.isBlank() || name.length() > 200) {
        throw GatewayErrors.invalid("displayName", "must be 1 to 200 characters");
      }
      List<String> roles = body.getJsonArray("roles", new JsonArray(type == PrincipalType.CLIENT ? List.of(Roles.MEMBER) : List.of()))
        .stream().map(String::valueOf).toList();
      for (String role : roles) {
        if (!Roles.ALL.contains(role)) {
          throw GatewayErrors.invalid("roles", "contains unknown role '" + role + "' (known: " + String.join(", ", Roles.ALL) + ")");
        }
      }
      return principals.create(UUID.randomUUID(), type, name, PrincipalStatus.APPROVED, roles, Optional.empty())
        .map(p -> new JsonObject().put("principalId", p.id().toString()).put("type", p.type().wire()).put("displayName", p.displayName())
          .put("status", p.status().wire()).put("roles", new JsonArray(p.roles())));
    }));
    router.post(BASE + "/principals/:id/tokens").handler(ctx -> respond(ctx, 201, caller -> {
      caller.requireAdmin();
      UUID id = uuid(ctx.pathParam("id"), "principal id");
      long ttl = body(ctx).getLong("ttlSeconds", TokenService.DEFAULT_TTL.toSeconds());
      return principals.find(id)
        .compose(p -> tokens.issue(p.orElseThrow(() -> AuthErrors.unknownPrincipal(id.toString())), Duration.ofSeconds(ttl)))
        .map(t -> new JsonObject().put("token", t.token()).put("tokenId", t.tokenId().toString()).put("principalId", id.toString())
          .put("expiresAt", DateTimeFormatter.ISO_INSTANT.format(t.expiresAt())));
    }));
    router.post(BASE + "/principals/:id/approve").handler(ctx -> respond(ctx, 200, caller -> {
      caller.requireAdmin();
      UUID id = uuid(ctx.pathParam("id"), "principal id");
      return principals.setStatus(id, PrincipalStatus.APPROVED).map(changed -> {
        if (!changed) {
          throw AuthErrors.unknownPrincipal(id.toString());
        }
        return new JsonObject().put("principalId", id.toString()).put("status", "approved");
      });
    }));
  }

  private static void respond(RoutingContext ctx, int status, Function<Caller, Future<JsonObject>> handler) {
    Future<JsonObject> result;
    try {
      result = handler.apply(HttpAuthHandler.caller(ctx));
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(ar.result().encode());
      } else {
        Problems.send(ctx, ar.cause());
      }
    });
  }

  private static JsonObject body(RoutingContext ctx) {
    if (ctx.body() == null || ctx.body().length() == 0) {
      return new JsonObject();
    }
    return ctx.body().asJsonObject();
  }

  private static UUID uuid(String value, String what) {
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
