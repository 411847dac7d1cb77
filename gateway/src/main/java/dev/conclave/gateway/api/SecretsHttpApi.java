package dev.conclave.gateway.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.secrets.SecretErrors;
import dev.conclave.platform.secrets.SecretInfo;
import dev.conclave.platform.secrets.SecretRef;
import dev.conclave.platform.secrets.SecretScope;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.format.DateTimeFormatter;

/**
 * Secrets over HTTP under {@code /api/v1/gateway/secrets}, for admins only: set and delete global
 * and per-agent secrets, list their names. Over HTTP because {@code coven.AdminService} has no
 * secret RPCs and the proto cannot change. No answer or problem ever contains a value.
 */
public final class SecretsHttpApi {

  private static final String BASE = GatewayHttpApi.BASE + "/secrets";

  private final Secrets secrets;

  public SecretsHttpApi(Secrets secrets) {
    this.secrets = secrets;
  }

  public void mount(HttpRoutes routes) {
    routes.get(BASE, Audience.ADMINS, Resource.NONE, (caller, ctx) -> secrets.list().map(list -> {
      JsonArray out = new JsonArray();
      list.forEach(info -> out.add(json(info)));
      return new JsonObject().put("secrets", out);
    }));
    routes.put(BASE + "/global/:name", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      set(caller, ctx, SecretRef.global(ctx.pathParam("name"))));
    routes.put(BASE + "/agents/:agentId/:name", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      set(caller, ctx, SecretRef.agent(ctx.pathParam("agentId"), ctx.pathParam("name"))));
    routes.delete(BASE + "/global/:name", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      delete(caller, SecretRef.global(ctx.pathParam("name"))));
    routes.delete(BASE + "/agents/:agentId/:name", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      delete(caller, SecretRef.agent(ctx.pathParam("agentId"), ctx.pathParam("name"))));
  }

  private Future<JsonObject> set(Caller caller, RoutingContext ctx, SecretRef ref) {
    return secrets.set(ref, value(ctx), caller.principalId()).map(SecretsHttpApi::json);
  }

  private Future<JsonObject> delete(Caller caller, SecretRef ref) {
    return secrets.delete(ref, caller.principalId()).map(v -> ref(ref).put("deleted", true));
  }

  /** The body's {@code value}; parse failures are reported without the parser's message, which may quote the body. */
  private static String value(RoutingContext ctx) {
    Object value;
    try {
      JsonObject body = GatewayHttpApi.body(ctx);
      value = body.getValue("value");
    } catch (ConclaveException notAnObject) {
      // body_invalid would be right too; secrets answer one code for every body without a string value
      throw SecretErrors.valueMissing();
    }
    if (!(value instanceof String text)) {
      throw SecretErrors.valueMissing();
    }
    return text;
  }

  private static JsonObject json(SecretInfo info) {
    return ref(info.ref()).put("updatedAt", DateTimeFormatter.ISO_INSTANT.format(info.updatedAt()))
      .put("updatedBy", info.updatedBy().toString());
  }

  private static JsonObject ref(SecretRef ref) {
    JsonObject json = new JsonObject().put("scope", ref.scope().wire());
    if (ref.scope() == SecretScope.AGENT) {
      json.put("agentId", ref.agentId());
    }
    return json.put("name", ref.name());
  }
}
