package dev.conclave.platform.db;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

import java.util.concurrent.TimeUnit;

/** Creates the node's one shared, named PostgreSQL pool. */
public final class PgPools {

  public static final String POOL_NAME = "conclave-pg";

  private PgPools() {
  }

  /**
   * @param maxSize connections in the pool
   * @param maxWaitQueue requests that may wait for a connection; beyond that, requests fail fast
   *     instead of piling up in memory
   */
  public static Pool create(Vertx vertx, PgUrl url, int maxSize, int maxWaitQueue) {
    PoolOptions options = new PoolOptions()
      .setName(POOL_NAME)
      .setShared(true)
      .setMaxSize(maxSize)
      .setMaxWaitQueueSize(maxWaitQueue)
      .setConnectionTimeout(10)
      .setConnectionTimeoutUnit(TimeUnit.SECONDS)
      .setIdleTimeout(5)
      .setIdleTimeoutUnit(TimeUnit.MINUTES)
      .setPoolCleanerPeriod(30_000);
    return PgBuilder.pool().with(options).connectingTo(url.connectOptions()).using(vertx).build();
  }
}
