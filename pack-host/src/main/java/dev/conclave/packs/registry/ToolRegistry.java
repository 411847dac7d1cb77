package dev.conclave.packs.registry;

import dev.conclave.contract.Addresses;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.packs.BuiltinEntries;
import dev.conclave.platform.packs.ToolEntry;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster-wide tool registry in shared data. A tool name belongs to whoever put it first (a
 * built-in, or a live pack); the same pack registering again takes its names over. Every change is a
 * compare-and-set on the exact entry read, so concurrent registrations on different nodes can never
 * both win a name, and a closing stream only removes entries that are still its own.
 */
public final class ToolRegistry {

  private static final int MAX_ATTEMPTS = 8;

  /** The result of a registration: the record as stored, the names won and lost, the registration it replaced. */
  public record Claim(PackRecord record, List<String> accepted, List<String> rejected, Optional<PackRecord> superseded) {
  }

  private final Vertx vertx;
  private final ClusterMembership membership;
  private final Future<AsyncMap<String, JsonObject>> tools;
  private final Future<AsyncMap<String, JsonObject>> packs;
  private final Future<AsyncMap<String, JsonObject>> nodes;

  public ToolRegistry(Vertx vertx, ClusterMembership membership) {
    this.vertx = vertx;
    this.membership = membership;
    this.tools = vertx.sharedData().getAsyncMap(Addresses.PACKS_TOOLS_MAP);
    this.packs = vertx.sharedData().getAsyncMap(Addresses.PACKS_MAP);
    this.nodes = vertx.sharedData().getAsyncMap(Addresses.PACK_HOST_NODES_MAP);
  }

  /** Announces this node as a pack host (it runs built-ins). */
  public Future<Void> joinNode(String nodeId) {
    return nodes.compose(m -> m.put(nodeId, new JsonObject().put("member", membership.localMember()).put("startedAt", Instant.now().toString())));
  }

  public Future<Void> leaveNode(String nodeId) {
    return nodes.compose(m -> m.remove(nodeId)).mapEmpty();
  }

  /** Makes the built-in tools known; a built-in's name is never given to a pack. */
  public Future<Void> publishBuiltins(List<BuiltinPack> builtins) {
    return BuiltinEntries.publish(vertx, builtins.stream()
      .flatMap(pack -> pack.tools().stream().map(tool -> ToolEntry.builtin(pack.packId(), tool.definition()))).toList());
  }

  /** Every built-in tool in the registry: this pack host's and the gateway's own. */
  public Future<List<ToolEntry>> builtinEntries() {
    return tools.compose(AsyncMap::entries).map(entries -> entries.values().stream().map(ToolEntry::fromJson)
      .filter(ToolEntry::builtin).sorted(java.util.Comparator.comparing(ToolEntry::name)).toList());
  }

  public Future<Optional<ToolEntry>> lookup(String name) {
    return tools.compose(m -> m.get(name)).map(json -> Optional.ofNullable(json).map(ToolEntry::fromJson));
  }

  /** Registers {@code mine} with {@code definitions}: wins the pack id, then every tool name it can. */
  public Future<Claim> claim(PackRecord mine, List<ToolDefinition> definitions) {
    return packs.compose(pm -> claimPack(pm, mine, 0).compose(superseded -> tools.compose(tm -> {
      List<Future<Boolean>> won = new ArrayList<>();
      for (ToolDefinition def : definitions) {
        ToolEntry entry = new ToolEntry(def.getName(), mine.packId(), false, mine.node(), mine.member(), mine.connection(),
          mine.principalId(), def);
        won.add(claimTool(tm, entry, 0));
      }
      return Future.all(won).compose(results -> {
        List<String> accepted = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        for (int i = 0; i < definitions.size(); i++) {
          (Boolean.TRUE.equals(results.resultAt(i)) ? accepted : rejected).add(definitions.get(i).getName());
        }
        if (accepted.isEmpty()) {
          Future<Boolean> undo = superseded.isPresent()
            ? pm.replaceIfPresent(mine.packId(), mine.toJson(), superseded.get().toJson())
            : pm.removeIfPresent(mine.packId(), mine.toJson());
          return undo.compose(v -> Future.failedFuture(PackErrors.allToolsTaken(mine.packId(), rejected)));
        }
        PackRecord stored = mine.withTools(accepted);
        return pm.replaceIfPresent(mine.packId(), mine.toJson(), stored.toJson()).map(v -> {
          publish("registered", stored, rejected, Optional.empty());
          return new Claim(stored, accepted, rejected, superseded);
        });
      });
    })));
  }

  /** Removes what {@code mine} still owns (names another stream took over stay with it). */
  public Future<Void> release(PackRecord mine, String reason) {
    List<Future<?>> all = new ArrayList<>();
    for (String name : mine.tools()) {
      all.add(tools.compose(m -> m.get(name).compose(json -> json != null && ToolEntry.fromJson(json).connection().equals(mine.connection())
        ? m.removeIfPresent(name, json) : Future.succeededFuture(false))));
    }
    all.add(packs.compose(m -> m.get(mine.packId()).compose(json -> json != null && PackRecord.fromJson(json).connection().equals(mine.connection())
      ? m.removeIfPresent(mine.packId(), json) : Future.succeededFuture(false))));
    return Future.join(all).onComplete(v -> publish("unregistered", mine, List.of(), Optional.of(reason))).mapEmpty();
  }

  /** Removes the entries of members that are gone; returns how many packs went with them. */
  public Future<Integer> sweep() {
    Future<Integer> gonePacks = packs.compose(m -> m.entries().compose(entries -> {
      List<Future<?>> all = new ArrayList<>();
      int[] count = {0};
      for (Map.Entry<String, JsonObject> e : entries.entrySet()) {
        PackRecord p = PackRecord.fromJson(e.getValue());
        if (!membership.isMember(p.member())) {
          count[0]++;
          all.add(m.removeIfPresent(e.getKey(), e.getValue())
            .onSuccess(removed -> {
              if (removed) {
                publish("unregistered", p, List.of(), Optional.of("its node left the cluster"));
              }
            }));
        }
      }
      return Future.join(all).map(count[0]);
    }));
    Future<?> goneTools = tools.compose(m -> m.entries().compose(entries -> Future.join(entries.entrySet().stream()
      .filter(e -> {
        ToolEntry t = ToolEntry.fromJson(e.getValue());
        return !t.builtin() && !membership.isMember(t.member());
      })
      .map(e -> m.removeIfPresent(e.getKey(), e.getValue())).toList())));
    Future<?> goneNodes = nodes.compose(m -> m.entries().compose(entries -> Future.join(entries.entrySet().stream()
      .filter(e -> !membership.isMember(e.getValue().getString("member", "")))
      .map(e -> m.removeIfPresent(e.getKey(), e.getValue())).toList())));
    return Future.join(gonePacks, goneTools, goneNodes).map(v -> gonePacks.result());
  }

  /** Live registrations, optionally only those of one principal. */
  public Future<List<PackRecord>> packs(Optional<String> principalId) {
    return packs.compose(AsyncMap::entries).map(entries -> entries.values().stream().map(PackRecord::fromJson)
      .filter(p -> membership.isMember(p.member()))
      .filter(p -> principalId.map(id -> id.equals(p.principalId())).orElse(true))
      .sorted(java.util.Comparator.comparing(PackRecord::packId)).toList());
  }

  private Future<Optional<PackRecord>> claimPack(AsyncMap<String, JsonObject> m, PackRecord mine, int attempt) {
    return m.putIfAbsent(mine.packId(), mine.toJson()).compose(previousJson -> {
      if (previousJson == null) {
        return Future.succeededFuture(Optional.empty());
      }
      PackRecord previous = PackRecord.fromJson(previousJson);
      if (!previous.principalId().equals(mine.principalId()) && membership.isMember(previous.member())) {
        return Future.failedFuture(PackErrors.packOwnedByOther(mine.packId()));
      }
      return m.replaceIfPresent(mine.packId(), previousJson, mine.toJson()).compose(replaced -> {
        if (replaced) {
          return Future.succeededFuture(Optional.of(previous));
        }
        return attempt < MAX_ATTEMPTS ? claimPack(m, mine, attempt + 1) : Future.failedFuture(contended(mine.packId()));
      });
    });
  }

  private Future<Boolean> claimTool(AsyncMap<String, JsonObject> m, ToolEntry mine, int attempt) {
    return m.putIfAbsent(mine.name(), mine.toJson()).compose(previousJson -> {
      if (previousJson == null) {
        return Future.succeededFuture(true);
      }
      ToolEntry previous = ToolEntry.fromJson(previousJson);
      boolean mineToTake = !previous.builtin() && (!membership.isMember(previous.member())
        || previous.packId().equals(mine.packId()) && previous.principalId().equals(mine.principalId()));
      if (!mineToTake) {
        return Future.succeededFuture(false);
      }
      return m.replaceIfPresent(mine.name(), previousJson, mine.toJson()).compose(replaced -> replaced ? Future.succeededFuture(true)
        : attempt < MAX_ATTEMPTS ? claimTool(m, mine, attempt + 1) : Future.failedFuture(contended(mine.packId())));
    });
  }

  private static ConclaveException contended(String packId) {
    return new ConclaveException(ErrorKind.CONFLICT, "registration_contended",
      "pack '" + packId + "' is being registered concurrently elsewhere; retry");
  }

  private void publish(String event, PackRecord pack, List<String> rejected, Optional<String> reason) {
    JsonObject body = new JsonObject()
      .put("event", event)
      .put("packId", pack.packId())
      .put("version", pack.version())
      .put("node", pack.node())
      .put("tools", new JsonArray(pack.tools()))
      .put("rejected", new JsonArray(rejected))
      .put("at", Instant.now().toString());
    reason.ifPresent(r -> body.put("reason", r));
    vertx.eventBus().publish(Addresses.PACK_EVENTS, body);
  }
}
