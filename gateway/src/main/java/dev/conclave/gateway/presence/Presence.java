package dev.conclave.gateway.presence;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.GatewayErrors;
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
 *
 * <p>Clustered, an entry is stored as JSON (Hazelcast serializes it). On a node alone, the map holds
 * the {@link PresenceEntry} itself, the same object the agent's session keeps: an idle agent's
 * presence then costs one map slot instead of a JSON copy of everything it declared, and reads copy
 * nothing.
 */
public final class Presence {

  private final Vertx vertx;
  private final boolean clustered;
  private final Future<AsyncMap<String, Object>> map;

  /**
   * @param clustered whether the node runs clustered ({@code ConclaveConfig.clustered()}): its shared
   *     data then reaches the other nodes, and entries are stored as JSON
   */
  public Presence(Vertx vertx, boolean clustered) {
    this.vertx = vertx;
    this.clustered = clustered;
    this.map = vertx.sharedData().<String, Object>getAsyncMap(Addresses.PRESENCE_MAP);
  }

  public Future<Optional<PresenceEntry>> get(String agentId) {
    return map.compose(m -> m.get(agentId)).map(stored -> Optional.ofNullable(stored).map(Presence::entry));
  }

  private Object stored(PresenceEntry entry) {
    return clustered ? entry.toJson() : entry;
  }

  private static PresenceEntry entry(Object stored) {
    return stored instanceof PresenceEntry entry ? entry : PresenceEntry.fromJson((JsonObject) stored);
  }

  /**
   * Makes {@code entry} the agent's presence; returns the entry it replaced, if any. An entry of a
   * newer session of the agent (a higher epoch) is never replaced: the claim fails with
   * {@code superseded}. In a reconnection storm an agent gives up on a registration still queued on
   * a busy node and registers elsewhere; the registration it gave up on holds the older epoch, and
   * when it completes later it must not take the agent from its live session.
   */
  public Future<Optional<PresenceEntry>> claim(PresenceEntry entry) {
    Object stored = stored(entry);
    return map.compose(m -> m.putIfAbsent(entry.agentId(), stored).compose(previous -> {
      if (previous == null) {
        return Future.succeededFuture(Optional.<PresenceEntry>empty());
      }
      if (entry(previous).epoch() > entry.epoch()) {
        return Future.failedFuture(GatewayErrors.superseded());
      }
      return m.replaceIfPresent(entry.agentId(), previous, stored).compose(replaced -> replaced
        ? Future.succeededFuture(Optional.of(entry(previous)))
        : claim(entry));
    })).onSuccess(previous -> publish(entry, true));
  }

  /** Removes the agent's presence if it is still {@code entry}'s session; true when removed. */
  public Future<Boolean> release(PresenceEntry entry) {
    return map.compose(m -> m.get(entry.agentId()).compose(current -> {
      if (current == null || !entry(current).sameSession(entry)) {
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
      for (Map.Entry<String, Object> e : entries.entrySet()) {
        out.add(entry(e.getValue()));
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
