package dev.conclave.packs.builtin.base;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.store.BbsStore;
import dev.conclave.packs.store.LogStore;
import dev.conclave.packs.store.TodoStore;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code builtin:base} pack (capability {@code base}): an agent's own activity log and todo
 * list, and the bulletin board all agents share. Tools are listed in coven-gateway's order.
 */
public final class BasePack {

  public static final String PACK_ID = "builtin:base";
  public static final String CAPABILITY = "base";

  private BasePack() {
  }

  public static BuiltinPack create(Pool pool, Clock clock) {
    List<BuiltinTool> tools = new ArrayList<>();
    tools.addAll(new LogTools(new LogStore(pool), clock).tools());
    tools.addAll(new TodoTools(new TodoStore(pool), clock).tools());
    tools.addAll(new BbsTools(new BbsStore(pool), clock).tools());
    return new BuiltinPack(PACK_ID, CAPABILITY, tools);
  }
}
