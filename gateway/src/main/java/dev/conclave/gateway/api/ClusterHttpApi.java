package dev.conclave.gateway.api;

import dev.conclave.gateway.presence.NodeRegistry;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster as the console shows it: the gateway nodes that are up and how many agents each holds
 * (members). (The bindings of frontends' channels to agents are {@link BindingHttpApi}'s.)
 */
public final class ClusterHttpApi {

  private final NodeRegistry nodes;
  private final Presence presence;
  public ClusterHttpApi(NodeRegistry nodes, Presence presence) {
    this.nodes = nodes;
    this.presence = presence;
  }

  public void mount(HttpRoutes routes) {
    routes.get(GatewayHttpApi.BASE + "/nodes", Audience.MEMBERS, Resource.NONE, (caller, ctx) ->
      nodes.all().compose(registered -> presence.all().map(present -> {
        Map<String, Integer> agents = new TreeMap<>();
        registered.keySet().forEach(node -> agents.put(node, 0));
        for (PresenceEntry e : present) {
          agents.merge(e.node(), 1, Integer::sum);
        }
        JsonArray out = new JsonArray();
        agents.forEach((node, count) -> {
          JsonObject entry = registered.get(node);
          JsonObject json = new JsonObject().put("node", node).put("agents", count).put("status", entry != null ? "up" : "leaving");
          if (entry != null && entry.getString("startedAt") != null) {
            json.put("startedAt", entry.getString("startedAt"));
          }
          out.add(json);
        });
        return new JsonObject().put("nodes", out);
      })));
  }
}
