package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.AgentQuery;
import dev.conclave.gateway.model.MemberNames;
import dev.conclave.gateway.registry.AgentRegistry;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The agent registry and lifecycle over HTTP (seed 004): RegisterAgent and LifecycleTransition for
 * admins, AgentQuery for members (each sees the agents it may act on), with camelCase member and
 * query parameter names where the session protocol has snake_case ones. docs/sessions.md.
 */
public final class RegistryHttpApi {

  /** HTTP answers in camelCase (README, "The JSON style"); the session protocol keeps seed 004's snake_case. */
  private static final MemberNames NAMES = MemberNames.CAMEL_CASE;

  private final AgentRegistry registry;
  private final Lifecycle lifecycle;

  public RegistryHttpApi(AgentRegistry registry, Lifecycle lifecycle) {
    this.registry = registry;
    this.lifecycle = lifecycle;
  }

  public void mount(HttpRoutes routes) {
    String base = GatewayHttpApi.BASE;
    routes.post(base + "/registry/agents", Audience.ADMINS, Resource.NONE, 201,
      (caller, ctx) -> registry.register(caller, GatewayHttpApi.body(ctx), NAMES));
    routes.get(base + "/registry/agents", Audience.MEMBERS, Resource.AGENT, (caller, ctx) -> {
      Set<String> fields = AgentQuery.fields(NAMES);
      Map<String, String> params = new HashMap<>();
      for (String name : ctx.queryParams().names()) {
        if (!fields.contains(name)) {
          throw GatewayErrors.invalid(name, "is not an AgentQuery field; use " + String.join(", ", fields.stream().sorted().toList()));
        }
        params.put(name, ctx.queryParams().get(name));
      }
      return registry.query(caller, AgentQuery.fromParams(params), NAMES).map(agents -> new JsonObject().put("agents", new JsonArray(agents)));
    });
    routes.post(base + "/agents/:agentId/lifecycle", Audience.ADMINS, Resource.NONE, 200, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      Object to = body.getValue("to");
      if (!(to instanceof String target) || target.isBlank()) {
        throw to == null ? GatewayErrors.required("to") : GatewayErrors.invalid("to", "must be a lifecycle state name");
      }
      LifecycleState state = LifecycleState.parse(target).orElseThrow(() -> GatewayErrors.badLifecycleState(target));
      Object reason = body.getValue("reason");
      if (reason != null && !(reason instanceof String)) {
        throw GatewayErrors.invalid("reason", "must be a string");
      }
      String why = Optional.ofNullable((String) reason).filter(r -> !r.isBlank()).orElse("operator request");
      return lifecycle.transition(ctx.pathParam("agentId"), state, why, Optional.of(caller.principalId()))
        .map(t -> t.lifecycleEvent(NAMES).put("type", "lifecycle_transition"));
    });
  }
}
