package dev.conclave.e2e.support;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.TreeMap;

/** Reads a {@code GET /api/v1/gateway/nodes} answer, the cluster as one node sees it. */
public final class NodeList {

  private NodeList() {
  }

  /** The gateway nodes the answer lists as up, with the agents each holds, by node id. */
  public static Map<String, Integer> up(JsonObject answer) {
    Map<String, Integer> out = new TreeMap<>();
    JsonArray list = answer.getJsonArray("nodes");
    for (int i = 0; i < list.size(); i++) {
      JsonObject n = list.getJsonObject(i);
      if ("up".equals(n.getString("status"))) {
        out.put(n.getString("node"), n.getInteger("agents"));
      }
    }
    return out;
  }
}
