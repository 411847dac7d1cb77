package dev.conclave.swarm.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.config.SwarmSettings;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.protocol.Operation;
import dev.conclave.swarm.protocol.ProtocolCall;
import dev.conclave.swarm.protocol.ProtocolRequests;
import dev.conclave.swarm.protocol.ProtocolService;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.protocol.RateLimits;
import dev.conclave.swarm.security.SignedAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.function.BiFunction;

/**
 * The Jetpack protocol over HTTP, at the spec's endpoints. Every operation needs an authenticated
 * caller (bearer token or HMAC signature); a signed request acts only as its agent; a bearer caller
 * acts for the agents its principal registered (admins for any). Bodies are the spec's request
 * shapes, including {@code protocolVersion: "1.0"}; path parameters fill agentId/taskId/messageId.
 */
final class ProtocolRoutes {

  private final ProtocolService service;
  private final AgentSecrets secrets;
  private final SwarmSettings settings;

  ProtocolRoutes(ProtocolService service, AgentSecrets secrets, SwarmSettings settings) {
    this.service = service;
    this.secrets = secrets;
    this.settings = settings;
  }

  void bind(HttpRoutes router) {
    post(router, "/api/v1/agents/register", Operation.REGISTER, (ctx, body) -> body);
    post(router, "/api/v1/agents/:id/heartbeat", Operation.HEARTBEAT, path("agentId"));
    post(router, "/api/v1/tasks/claim", Operation.CLAIM, (ctx, body) -> body);
    post(router, "/api/v1/tasks/:id/progress", Operation.PROGRESS, path("taskId"));
    post(router, "/api/v1/tasks/:id/complete", Operation.COMPLETE, path("taskId"));
    post(router, "/api/v1/tasks/:id/fail", Operation.FAIL, path("taskId"));
    post(router, "/api/v1/messages", Operation.SEND_MESSAGE, (ctx, body) -> body);
    router.raw(HttpMethod.GET, "/api/v1/messages", Audience.ANY_PRINCIPAL, Resource.SWARM_AGENT,
      ctx -> handle(ctx, Operation.RECEIVE_MESSAGES, () -> receiveRequest(ctx)));
    post(router, "/api/v1/messages/:id/ack", Operation.ACK_MESSAGE, path("messageId"));
    post(router, "/api/v1/leases/acquire", Operation.ACQUIRE_LEASE, (ctx, body) -> body);
    post(router, "/api/v1/leases/release", Operation.RELEASE_LEASE, (ctx, body) -> body);
  }

  private void post(HttpRoutes router, String route, Operation op, BiFunction<RoutingContext, JsonObject, JsonObject> shape) {
    // registrations are audited; the high-volume operations only when refused or failed
    router.raw(HttpMethod.POST, route, Audience.ANY_PRINCIPAL, Resource.SWARM_AGENT, op == Operation.REGISTER,
      ctx -> handle(ctx, op, () -> shape.apply(ctx, Requests.body(ctx, false))));
  }

  private static BiFunction<RoutingContext, JsonObject, JsonObject> path(String member) {
    return (ctx, body) -> Requests.withPathMember(body, member, ctx.pathParam("id"));
  }

  private interface BodySource {
    JsonObject read();
  }

  private void handle(RoutingContext ctx, Operation op, BodySource source) {
    try {
      Caller caller = HttpAuthHandler.caller(ctx);
      JsonObject request = ProtocolRequests.validate(op, source.read());
      String agentId = ProtocolRequests.agentId(op, request);
      // the signer goes to swarm.dispatch, which refuses a signed request acting for another agent
      // (403) or registering (401) after the operation's own size, format and range checks
      ProtocolCall call = new ProtocolCall(op, request, caller.principalId(), caller.isAdmin(),
        settings.rateLimits() ? RateLimits.bucket(op, Requests.clientIp(ctx, settings.trustForwardedFor()), agentId, caller.principalId()) : null,
        op == Operation.REGISTER ? secrets.newSalt() : null, SignedAgent.of(ctx).orElse(null),
        ProtocolRequests.javaProblems(op, request));
      service.execute(call).onComplete(ar -> {
        if (ar.succeeded()) {
          Replies.jsonText(ctx, 200, ar.result().json());
        } else {
          Replies.problem(ctx, ar.cause());
        }
      });
    } catch (RuntimeException e) {
      Replies.problem(ctx, e);
    }
  }

  /**
   * RECEIVE_MESSAGES from the query: agentId, since, types (comma-separated or repeated), limit, and
   * protocolVersion (or the X-Protocol-Version header).
   */
  private static JsonObject receiveRequest(RoutingContext ctx) {
    var query = ctx.queryParams();
    String version = query.get("protocolVersion") != null ? query.get("protocolVersion") : ctx.request().getHeader("X-Protocol-Version");
    JsonObject body = new JsonObject().put("protocolVersion", version).put("agentId", query.get("agentId"))
      .put("since", query.get("since"));
    List<String> types = query.getAll("types").stream().flatMap(t -> List.of(t.split(",")).stream())
      .map(String::trim).filter(t -> !t.isEmpty()).toList();
    if (!types.isEmpty()) {
      body.put("types", new JsonArray(types));
    }
    String limit = query.get("limit");
    if (limit != null) {
      try {
        body.put("limit", Long.parseLong(limit.trim()));
      } catch (NumberFormatException e) {
        throw SwarmErrors.invalidField("limit", "must be a whole number");
      }
    }
    return body;
  }
}
