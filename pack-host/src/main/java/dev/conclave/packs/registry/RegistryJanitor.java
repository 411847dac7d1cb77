package dev.conclave.packs.registry;

import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the registry true when nodes die: entries of members that left the cluster are removed (at
 * once when a member leaves, and periodically, for what a partition or a missed notice left
 * behind). Every pack-host node does this; every step is a compare-and-remove, so it does not matter
 * how many do.
 */
public final class RegistryJanitor {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryJanitor.class);

  private final ToolRegistry registry;
  private boolean sweeping;

  public RegistryJanitor(ToolRegistry registry) {
    this.registry = registry;
  }

  /** One sweep; skipped while the previous one still runs. */
  public Future<Void> sweep(String why) {
    if (sweeping) {
      return Future.succeededFuture();
    }
    sweeping = true;
    return registry.sweep()
      .onSuccess(gone -> {
        if (gone > 0) {
          LOG.warn("packs: removed {} packs of nodes that left the cluster ({})", gone, why);
        }
      })
      .onFailure(err -> LOG.warn("packs: registry sweep failed error={}", err.getMessage()))
      .onComplete(v -> sweeping = false)
      .mapEmpty();
  }
}
