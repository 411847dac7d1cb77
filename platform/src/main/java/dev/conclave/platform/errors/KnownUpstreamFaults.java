package dev.conclave.platform.errors;

import java.util.Optional;

/**
 * Failures that libraries we depend on throw into Vert.x's unhandled-exception handler, that are known
 * to be harmless, and are not ours to fix: each is told apart by its stack, and described in one line
 * for a WARN instead of an ERROR with a stack that would page someone.
 */
public final class KnownUpstreamFaults {

  private KnownUpstreamFaults() {
  }

  /**
   * The PostgreSQL pool's wait timer fires for a request the pool has just given a connection:
   * Vert.x's {@code SimpleConnectionPool} does not mark a waiter served when a recycled connection is
   * handed to it, so the timer's cancel succeeds and fails the request's promise a second time
   * (eclipse-vertx/vert.x#6169, fixed in 5.1; vertx-core 5.0.7 to 5.0.12 have it). The request was
   * served; the second completion is refused and thrown here. Seen while a node waits for connections
   * in a network partition or a database outage.
   */
  static final String POOL_TIMER_RACE = "the PostgreSQL pool's wait timer fired for a request it had already served "
    + "(Vert.x connection pool race, eclipse-vertx/vert.x#6169); the request was served, nothing was lost";

  /** What {@code failure} is, when it is one of the known harmless upstream faults. */
  public static Optional<String> describe(Throwable failure) {
    if (failure instanceof IllegalStateException && "Promise already completed".equals(failure.getMessage())
      && thrownFrom(failure, "io.vertx.sqlclient.impl.pool.SqlConnectionPool$1PoolRequest")
      && thrownFrom(failure, "io.vertx.core.internal.pool.SimpleConnectionPool$Cancel")) {
      return Optional.of(POOL_TIMER_RACE);
    }
    return Optional.empty();
  }

  private static boolean thrownFrom(Throwable failure, String className) {
    for (StackTraceElement frame : failure.getStackTrace()) {
      if (frame.getClassName().equals(className)) {
        return true;
      }
    }
    return false;
  }
}
