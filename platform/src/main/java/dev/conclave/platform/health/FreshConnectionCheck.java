package dev.conclave.platform.health;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlConnection;

import java.util.function.Supplier;

/**
 * Readiness's proof that the database takes new connections: a connection opened outside the pool,
 * asked {@code SELECT 1} and closed. {@code /health/ready} is open to anyone, so the answer is reused
 * for {@link #REUSE_MS} and only one check runs at a time: probes cannot make the node open
 * connections at will.
 */
final class FreshConnectionCheck {

  static final long REUSE_MS = 2_000;

  private final Vertx vertx;
  private final Supplier<Future<SqlConnection>> connect;
  private Future<Void> last;
  private long lastAt;

  FreshConnectionCheck(Vertx vertx, Supplier<Future<SqlConnection>> connect) {
    this.vertx = vertx;
    this.connect = connect;
  }

  synchronized Future<Void> check() {
    long now = System.nanoTime();
    if (last != null && (!last.isComplete() || now - lastAt < REUSE_MS * 1_000_000)) {
      return last;
    }
    lastAt = now;
    last = connect.get().compose(conn -> conn.query("SELECT 1").execute()
      .eventually(conn::close)
      .<Void>mapEmpty());
    return last;
  }
}
