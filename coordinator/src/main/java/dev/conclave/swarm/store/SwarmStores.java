package dev.conclave.swarm.store;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.core.Future;

/** Shared by the stores: a failed statement becomes the swarm problem it raised, if it raised one. */
final class SwarmStores {

  private SwarmStores() {
  }

  static <T> Future<T> fail(Throwable failure) {
    return Future.failedFuture(SwarmErrors.fromSql(failure));
  }
}
