package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.gateway.streaming.DashboardEvents;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Optional;

/**
 * The bindings of frontends' channels to agents over HTTP, for admins: list, create and delete, as
 * {@code AdminService} does them over gRPC ({@link BindingAdmin}: the same checks, the same problem
 * codes, the same announcement of who may read the conversation now). A binding's JSON is its wire
 * message in protobuf's JSON form: {@code id, frontend, channelId, agentId, createdAt, createdBy}.
 */
public final class BindingHttpApi {

  private static final String PATH = GatewayHttpApi.BASE + "/bindings";

  private final BindingStore bindings;
  private final BindingAdmin changes;

  public BindingHttpApi(BindingStore bindings, LiveAccess access) {
    this.bindings = bindings;
    this.changes = new BindingAdmin(bindings, access);
  }

  public void mount(HttpRoutes routes) {
    routes.get(PATH, Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      bindings.list(Optional.ofNullable(ctx.queryParams().get("frontend")), Optional.ofNullable(ctx.queryParams().get("agentId")))
        .map(list -> {
          JsonArray out = new JsonArray();
          list.forEach(b -> out.add(DashboardEvents.message(b)));
          return new JsonObject().put("bindings", out);
        }));
    routes.post(PATH, Audience.ADMINS, Resource.NONE, 201, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      return changes.create(caller, text(body, "frontend", "frontend"), text(body, "channelId", "channel_id"),
        text(body, "agentId", "agent_id")).map(DashboardEvents::message);
    });
    routes.delete(PATH + "/:id", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      changes.delete(GatewayHttpApi.uuid(ctx.pathParam("id"), "binding id"))
        .map(b -> DashboardEvents.message(b).put("deleted", true)));
  }

  /**
   * A field of the body as text ("" when absent, which the checks call required); anything but a
   * string is {@code binding_invalid}, named as AdminService names it.
   */
  private static String text(JsonObject body, String field, String wireName) {
    Object value = body.getValue(field);
    if (value == null) {
      return "";
    }
    if (!(value instanceof String s)) {
      throw GatewayErrors.badBinding(wireName, "must be a string");
    }
    return s;
  }
}
