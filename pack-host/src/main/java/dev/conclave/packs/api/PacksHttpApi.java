package dev.conclave.packs.api;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.Builtins;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.packs.store.ToolCallLog;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Optional;

/**
 * The pack host's HTTP API under {@value #BASE}: the packs connected anywhere in the cluster with
 * their tools, the built-in packs, and (for admins) an agent's recent tool calls.
 */
public final class PacksHttpApi {

  static final String BASE = "/api/v1/packs";
  static final int MAX_CALLS = 500;

  private final ToolRegistry registry;
  private final Builtins builtins;
  private final ToolCallLog calls;

  public PacksHttpApi(ToolRegistry registry, Builtins builtins, ToolCallLog calls) {
    this.registry = registry;
    this.builtins = builtins;
    this.calls = calls;
  }

  public void mount(HttpRoutes routes) {
    routes.get(BASE, Audience.MEMBERS, Resource.NONE, (caller, ctx) -> registry.packs(Optional.empty()).map(packs -> {
      JsonArray live = new JsonArray();
      packs.forEach(p -> live.add(new JsonObject().put("packId", p.packId()).put("version", p.version()).put("node", p.node())
        .put("tools", new JsonArray(p.tools())).put("registeredAt", p.registeredAt().toString())));
      JsonArray builtin = new JsonArray();
      for (BuiltinPack b : builtins.packs()) {
        builtin.add(new JsonObject().put("packId", b.packId()).put("capability", b.capability())
          .put("tools", new JsonArray(b.tools().stream().map(t -> t.name()).toList())));
      }
      return new JsonObject().put("packs", live).put("builtins", builtin);
    }));
    routes.get(BASE + "/calls/:agentId", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      calls.recentOf(ctx.pathParam("agentId"), parseLimit(ctx.queryParams().get("limit"))).map(list -> new JsonObject().put("calls", list)));
  }

  private static int parseLimit(String value) {
    if (value == null) {
      return 50;
    }
    try {
      int n = Integer.parseInt(value);
      if (n < 1 || n > MAX_CALLS) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw ConclaveException.invalid("limit_invalid", "limit must be 1 to " + MAX_CALLS + ", got '" + value + "'");
    }
  }
}
