package dev.conclave.gateway.presence;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;


/** The gateway nodes that are up, with their Vert.x cluster node ids (shared data). */
public final class NodeRegistry {

  private final Future<AsyncMap<String, JsonObject>> map;

  public NodeRegistry(Vertx vertx) {
    this.map = vertx.sharedData().<String, JsonObject>getAsyncMap(Addresses.GATEWAY_NODES_MAP);
  }

  public Future<Void> join(String nodeId, String vertxNodeId) {
    return map.compose(m -> m.put(nodeId, new JsonObject().put("vertxNodeId", vertxNodeId).put("startedAt", Instant.now().toString())));
  }

  /**
   * Puts this node's entry back when it is missing or names another cluster member (the other side
   * of a healed partition removed it while it could not hear this node, or a merge replaced it);
   * keeps its start time. Returns whether it had to.
   */
  public Future<Boolean> reassert(String nodeId, String vertxNodeId) {
    return map.compose(m -> m.get(nodeId).compose(entry -> {
      if (entry != null && vertxNodeId.equals(entry.getString("vertxNodeId"))) {
        return Future.succeededFuture(false);
      }
      JsonObject fresh = new JsonObject().put("vertxNodeId", vertxNodeId)
        .put("startedAt", entry != null && entry.getString("startedAt") != null ? entry.getString("startedAt") : Instant.now().toString());
      return m.put(nodeId, fresh).map(true);
    }));
  }

  public Future<Void> leave(String nodeId) {
    return map.compose(m -> m.remove(nodeId)).mapEmpty();
  }

  public Future<List<String>> live() {
    return map.compose(AsyncMap::keys).map(ArrayList::new);
  }

  /** Every registered gateway node and its entry ({@code vertxNodeId}, {@code startedAt}). */
  public Future<Map<String, JsonObject>> all() {
    return map.compose(AsyncMap::entries).map(java.util.HashMap::new);
  }

  /** Every registered gateway node and its Vert.x cluster node id. */
  public Future<Map<String, String>> entries() {
    return map.compose(AsyncMap::entries).map(entries -> {
      Map<String, String> out = new java.util.HashMap<>();
      entries.forEach((k, v) -> out.put(k, v.getString("vertxNodeId")));
      return out;
    });
  }

}
