package dev.conclave.platform.packs;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts built-in tools into the cluster-wide tool registry ({@link Addresses#PACKS_TOOLS_MAP}): the
 * pack host's own and the gateway's own, by the one rule. A built-in's name is never given to a pack
 * (the registry refuses packs a name a built-in holds, and never sweeps built-ins away).
 */
public final class BuiltinEntries {

  private static final Logger LOG = LoggerFactory.getLogger(BuiltinEntries.class);

  private BuiltinEntries() {
  }

  public static Future<Void> publish(Vertx vertx, List<ToolEntry> entries) {
    Future<io.vertx.core.shareddata.AsyncMap<String, JsonObject>> tools = vertx.sharedData().getAsyncMap(Addresses.PACKS_TOOLS_MAP);
    List<Future<?>> all = new ArrayList<>();
    for (ToolEntry entry : entries) {
      JsonObject json = entry.toJson();
      all.add(tools.compose(m -> m.putIfAbsent(entry.name(), json).compose(previous -> {
        if (previous == null || previous.equals(json)) {
          return Future.succeededFuture();
        }
        ToolEntry was = ToolEntry.fromJson(previous);
        if (was.builtin()) {
          // another version of Conclave defined it differently (or ran it elsewhere): the newest start wins
          return m.replaceIfPresent(entry.name(), previous, json).mapEmpty();
        }
        LOG.warn("packs: built-in tool name is held by a pack tool={} pack={}", entry.name(), was.packId());
        return Future.succeededFuture();
      })));
    }
    return Future.all(all).mapEmpty();
  }
}
