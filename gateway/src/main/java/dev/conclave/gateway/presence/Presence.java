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
import java.util.Optional;

/**
 * The presence directory: agent → the node and session holding its stream. It lives in Vert.x
 * shared data, so it is cluster-wide when the node runs clustered and local otherwise; every
 * change is published on {@link Addresses#PRESENCE_EVENTS}.
 */
public final class Presence {

  private final Vertx vertx;
  private final Future<AsyncMap<String, JsonObject>> map;

  public Presence(Vertx vertx) {
    this.vertx = vertx;
    this.map = vertx.sharedData().<String, JsonObject>getAsyncMap(Addresses.PRESENCE_MAP);
  }

  public Future<Optional<PresenceEntry>> get(String agentId) {
    return map.compose(m -> m.get(agentId)).map(json -> Optional.ofNullable(json).map(PresenceEntry::fromJson));
  }

  /** Makes {@code entry} the agent's presence; returns the entry it replaced, if any. */
  public Future<Optional<PresenceEntry>> claim(PresenceEntry entry) {
    JsonObject json = entry.toJson();
    return map.compose(m -> m.putIfAbsent(entry.agentId(), json).compose(previous -> {
      if (previous == null) {
        return Future.succeededFuture(Optional.<PresenceEntry>empty());
      }
      return m.replaceIfPresent(entry.agentId(), previous, json).compose(replaced -> replaced
        ? Future.succeededFuture(Optional.of(PresenceEntry.fromJson(previous)))
        : claim(entry));
    })).onSuccess(previous -> publish(entry, true));
  }

  /** Removes the agent's presence if it is still {@code entry}'s session; true when removed. */
  public Future<Boolean> release(PresenceEntry entry) {
    return map.compose(m -> m.get(entry.agentId()).compose(current -> {
      if (current == null || !PresenceEntry.fromJson(current).sameSession(entry)) {
        return Future.succeededFuture(false);
      }
      return m.removeIfPresent(entry.agentId(), current);
    })).onSuccess(removed -> {
      if (removed) {
        publish(entry, false);
      }
    });
  }

  /** Every present agent. */
  public Future<List<PresenceEntry>> all() {
    return map.compose(AsyncMap::entries).map(entries -> {
      List<PresenceEntry> out = new ArrayList<>(entries.size());
      for (Map.Entry<String, JsonObject> e : entries.entrySet()) {
        out.add(PresenceEntry.fromJson(e.getValue()));
      }
      return out;
    });
  }

  private void publish(PresenceEntry entry, boolean connected) {
    vertx.eventBus().publish(Addresses.PRESENCE_EVENTS, new JsonObject()
      .put("agentId", entry.agentId())
      .put("principalId", entry.principalId().toString())
      .put("connected", connected)
      .put("node", entry.node())
      .put("epoch", entry.epoch())
      .put("name", entry.name())
      .put("capabilities", new io.vertx.core.json.JsonArray(entry.capabilities()))
      .put("features", new io.vertx.core.json.JsonArray(entry.features()))
      .put("workspaces", new io.vertx.core.json.JsonArray(entry.metadata().getWorkspacesList()))
      .put("at", Instant.now().toString()));
  }
}
