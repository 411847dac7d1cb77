package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.access.AccessChange;
import dev.conclave.platform.access.AgentGrants;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Principals over HTTP under {@code /api/v1/gateway}: admins create principals, issue their tokens
 * and approve pending ones; an agent's owner (or an admin) grants and revokes other principals'
 * access to the agent. Taking a grant back ends the grantee's open followers of the agent (on this
 * node before the answer, on the others as they hear of it).
 */
public final class PrincipalHttpApi {

  private static final String BASE = GatewayHttpApi.BASE;

  private final PrincipalStore principals;
  private final TokenService tokens;
  private final AgentGrants grants;
  private final LiveAccess access;

  public PrincipalHttpApi(PrincipalStore principals, TokenService tokens, AgentGrants grants, LiveAccess access) {
    this.principals = principals;
    this.tokens = tokens;
    this.grants = grants;
    this.access = access;
  }

  public void mount(HttpRoutes routes) {
    routes.post(BASE + "/principals", Audience.ADMINS, Resource.NONE, 201, (caller, ctx) -> create(caller, GatewayHttpApi.body(ctx)));
    routes.post(BASE + "/principals/:id/tokens", Audience.ADMINS, Resource.NONE, 201, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      JsonObject body = GatewayHttpApi.body(ctx);
      Object ttlValue = body.getValue("ttlSeconds", TokenService.DEFAULT_TTL.toSeconds());
      if (!(ttlValue instanceof Number ttlNumber)) {
        throw GatewayErrors.invalid("ttlSeconds", "must be a number of seconds");
      }
      long ttl = ttlNumber.longValue();
      Object purposeValue = body.getValue("purpose", TokenPurpose.API.wire());
      TokenPurpose purpose = TokenPurpose.of(String.valueOf(purposeValue)).filter(p -> p != TokenPurpose.MCP)
        .orElseThrow(() -> AuthErrors.purposeNotIssuable(String.valueOf(purposeValue)));
      return principals.find(id)
        .compose(p -> tokens.issue(p.orElseThrow(() -> AuthErrors.unknownPrincipal(id.toString())), Duration.ofSeconds(ttl), purpose))
        .map(t -> new JsonObject().put("token", t.token()).put("tokenId", t.tokenId().toString()).put("principalId", id.toString())
          .put("purpose", purpose.wire()).put("expiresAt", DateTimeFormatter.ISO_INSTANT.format(t.expiresAt())));
    });
    routes.get(BASE + "/principals", Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      java.util.Optional<PrincipalStatus> status = java.util.Optional.ofNullable(ctx.queryParams().get("status")).map(s -> PrincipalStatus.of(s)
        .orElseThrow(() -> GatewayErrors.invalid("status", "must be one of pending, approved, revoked, got '" + s + "'")));
      return principals.list(java.util.Optional.empty(), status).compose(list -> names(list).map(names -> {
        JsonArray out = new JsonArray();
        list.forEach(p -> {
          JsonObject json = new JsonObject().put("principalId", p.id().toString()).put("type", p.type().wire()).put("displayName", p.displayName())
            .put("status", p.status().wire()).put("roles", new JsonArray(p.roles()))
            .put("createdAt", DateTimeFormatter.ISO_INSTANT.format(p.createdAt()));
          p.ownerId().ifPresent(o -> {
            json.put("ownerId", o.toString());
            Optional.ofNullable(names.get(o)).ifPresent(n -> json.put("ownerName", n));
          });
          p.pubkeyFingerprint().ifPresent(f -> json.put("fingerprint", f));
          out.add(json);
        });
        return new JsonObject().put("principals", out);
      }));
    });
    routes.post(BASE + "/principals/:id/approve", Audience.ADMINS, Resource.NONE, 200, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      return principals.setStatus(id, PrincipalStatus.APPROVED).map(changed -> {
        if (!changed) {
          throw AuthErrors.unknownPrincipal(id.toString());
        }
        tokens.principalChanged(id);
        return new JsonObject().put("principalId", id.toString()).put("status", "approved");
      });
    });
    mountCapabilities(routes);
    routes.post(BASE + "/principals/:id/disable", Audience.ADMINS, Resource.NONE, 200, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      return principals.setStatus(id, PrincipalStatus.REVOKED).compose(changed -> changed
        ? tokens.revokePrincipal(id, "principal disabled").map(ids -> new JsonObject().put("principalId", id.toString())
          .put("status", "revoked").put("tokensRevoked", ids.size()))
        : Future.failedFuture(AuthErrors.unknownPrincipal(id.toString())));
    });
    routes.delete(BASE + "/principals/:id", Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      return principals.delete(id).compose(deleted -> deleted
        ? tokens.revokePrincipal(id, "principal deleted").map(ids -> new JsonObject().put("principalId", id.toString())
          .put("deleted", true).put("tokensRevoked", ids.size()))
        : Future.failedFuture(AuthErrors.unknownPrincipal(id.toString())));
    });
    routes.get(BASE + "/agents/:agentId/grants", Audience.MEMBERS, Resource.AGENT_OWNER, (caller, ctx) ->
      ownedAgent(caller, ctx.pathParam("agentId")).compose(agent -> grants.list(agentPrincipal(agent))
        .map(list -> agent.copy().put("grants", list))));
    routes.post(BASE + "/agents/:agentId/grants", Audience.MEMBERS, Resource.AGENT_OWNER, 200, (caller, ctx) -> {
      UUID grantee = GatewayHttpApi.uuid(GatewayHttpApi.body(ctx).getString("principalId", ""), "principalId");
      return ownedAgent(caller, ctx.pathParam("agentId")).compose(agent -> principals.find(grantee).compose(found -> found.isEmpty()
        ? Future.failedFuture(AuthErrors.unknownPrincipal(grantee.toString()))
        : grants.grant(agentPrincipal(agent), grantee, caller.principalId())
          .map(added -> new JsonObject().put("agentId", ctx.pathParam("agentId")).put("principalId", grantee.toString()).put("granted", true))));
    });
    routes.delete(BASE + "/agents/:agentId/grants/:principalId", Audience.MEMBERS, Resource.AGENT_OWNER, (caller, ctx) -> {
      UUID grantee = GatewayHttpApi.uuid(ctx.pathParam("principalId"), "principal id");
      return ownedAgent(caller, ctx.pathParam("agentId")).compose(agent -> grants.revoke(agentPrincipal(agent), grantee))
        .compose(removed -> removed ? access.announce(AccessChange.principal(grantee)).map(removed) : Future.succeededFuture(removed))
        .map(removed -> new JsonObject().put("agentId", ctx.pathParam("agentId")).put("principalId", grantee.toString())
          .put("granted", false).put("changed", removed));
    });
  }

  /**
   * Capabilities admins grant to agent principals (today {@code admin}: the built-in admin tools). A
   * grant holds for the principal's agents from their next registration; taking it back stops their
   * admin tools at the next call. Every change is in the audit log like any other change.
   */
  private void mountCapabilities(HttpRoutes routes) {
    routes.get(BASE + "/principals/:id/capabilities", Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      return existing(id).compose(p -> principals.capabilities().list(id)).map(list -> {
        JsonArray out = new JsonArray();
        list.forEach(g -> {
          JsonObject json = new JsonObject().put("capability", g.capability())
            .put("grantedAt", DateTimeFormatter.ISO_INSTANT.format(g.grantedAt()));
          g.grantedBy().ifPresent(b -> json.put("grantedBy", b.toString()));
          out.add(json);
        });
        return new JsonObject().put("principalId", id.toString()).put("capabilities", out);
      });
    });
    routes.post(BASE + "/principals/:id/capabilities", Audience.ADMINS, Resource.NONE, 200, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      Object capability = GatewayHttpApi.body(ctx).getValue("capability");
      if (!(capability instanceof String name) || name.isBlank()) {
        throw GatewayErrors.invalid("capability", "must name the capability to grant, such as \"admin\"");
      }
      return existing(id).compose(p -> principals.capabilities().grant(p, name, Optional.of(caller.principalId())))
        .map(added -> new JsonObject().put("principalId", id.toString()).put("capability", name).put("granted", true)
          .put("changed", added));
    });
    routes.delete(BASE + "/principals/:id/capabilities/:capability", Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      String capability = ctx.pathParam("capability");
      return existing(id).compose(p -> principals.capabilities().revoke(id, capability))
        .map(removed -> new JsonObject().put("principalId", id.toString()).put("capability", capability).put("granted", false)
          .put("changed", removed));
    });
  }

  private Future<dev.conclave.platform.auth.Principal> existing(UUID id) {
    return principals.find(id).map(p -> p.orElseThrow(() -> AuthErrors.unknownPrincipal(id.toString())));
  }

  private Future<JsonObject> create(Caller caller, JsonObject body) {
    PrincipalType type = PrincipalType.of(body.getString("type", "")).orElseThrow(() ->
      GatewayErrors.invalid("type", "must be one of client, agent, pack, got '" + body.getString("type", "") + "'"));
    String name = body.getString("displayName", "");
    DisplayNames.check("displayName", name);
    List<String> roles = body.getJsonArray("roles", new JsonArray(type == PrincipalType.CLIENT ? List.of(Roles.MEMBER) : List.of()))
      .stream().map(String::valueOf).toList();
    for (String role : roles) {
      if (!Roles.ALL.contains(role)) {
        throw GatewayErrors.invalid("roles", "contains unknown role '" + role + "' (known: " + String.join(", ", Roles.ALL) + ")");
      }
    }
    // an agent belongs to the member who will use it: the one named, else the admin creating it
    Optional<UUID> owner = type != PrincipalType.AGENT ? Optional.empty()
      : Optional.of(body.containsKey("ownerId") ? GatewayHttpApi.uuid(body.getString("ownerId"), "ownerId") : caller.principalId());
    return owner.map(o -> principals.find(o).map(found -> found.orElseThrow(() -> AuthErrors.unknownPrincipal(o.toString()))))
      .orElse(Future.succeededFuture())
      .compose(v -> principals.create(UUID.randomUUID(), type, name, PrincipalStatus.APPROVED, roles, Optional.empty(), owner))
      .map(p -> {
        JsonObject json = new JsonObject().put("principalId", p.id().toString()).put("type", p.type().wire())
          .put("displayName", p.displayName()).put("status", p.status().wire()).put("roles", new JsonArray(p.roles()));
        p.ownerId().ifPresent(o -> json.put("ownerId", o.toString()));
        return json;
      });
  }

  /**
   * Display names of the listed principals and of their owners, so an admin sees who owns a pending
   * key: the owners are read too when the listing (filtered by status) left them out. A deleted owner
   * has no name.
   */
  private Future<Map<UUID, String>> names(List<Principal> listed) {
    Map<UUID, String> names = new HashMap<>();
    listed.forEach(p -> names.put(p.id(), p.displayName()));
    boolean missing = listed.stream().flatMap(p -> p.ownerId().stream()).anyMatch(o -> !names.containsKey(o));
    if (!missing) {
      return Future.succeededFuture(names);
    }
    return principals.list(Optional.empty(), Optional.empty()).map(all -> {
      all.forEach(p -> names.putIfAbsent(p.id(), p.displayName()));
      return names;
    });
  }

  /** The agent's ownership, if the caller is its owner or an admin; only they manage grants. */
  private Future<JsonObject> ownedAgent(Caller caller, String agentId) {
    return grants.ownership(agentId).compose(found -> {
      if (found.isEmpty()) {
        return Future.failedFuture(caller.isAdmin() ? GatewayErrors.agentNotFound(agentId) : GatewayErrors.ownerOnly(agentId));
      }
      String owner = found.get().getString("ownerId");
      if (!caller.isAdmin() && !caller.principalId().toString().equals(owner)) {
        return Future.failedFuture(GatewayErrors.ownerOnly(agentId));
      }
      return Future.succeededFuture(found.get());
    });
  }

  private static UUID agentPrincipal(JsonObject ownership) {
    return UUID.fromString(ownership.getString("agentPrincipalId"));
  }
}
