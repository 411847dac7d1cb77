package dev.conclave.gateway.support;

import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.platform.db.PgPools;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;

/**
 * A gateway's database with a Vert.x and a pool of the test's own, for tests that drive the
 * gateway's stores and writers directly (not through its APIs).
 */
public final class StoreFixture implements AutoCloseable {

  private final GatewayFixture gateway;
  private final Vertx vertx;
  private final Pool pool;

  private StoreFixture(GatewayFixture gateway, Vertx vertx, Pool pool) {
    this.gateway = gateway;
    this.vertx = vertx;
    this.pool = pool;
  }

  /** A gateway fixture's database, reached with a pool of {@code size} connections. */
  public static StoreFixture start(int size) {
    GatewayFixture gateway = GatewayFixture.start();
    Vertx vertx = Vertx.vertx();
    return new StoreFixture(gateway, vertx, PgPools.create(vertx, gateway.node().database(), size, 1000));
  }

  /** The gateway whose database this is, for tests that also call its APIs. */
  public GatewayFixture gateway() {
    return gateway;
  }

  public Vertx vertx() {
    return vertx;
  }

  public Pool pool() {
    return pool;
  }

  /** The ledger store over this pool, with the node's default bound on a stored event (1 MiB). */
  public LedgerStore ledger() {
    return new LedgerStore(pool, 1024 * 1024);
  }

  @Override
  public void close() {
    GatewayFixture.await(pool.close());
    GatewayFixture.await(vertx.close());
    gateway.close();
  }
}
