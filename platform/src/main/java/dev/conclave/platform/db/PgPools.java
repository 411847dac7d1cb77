package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
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
    return PgBuilder.pool().with(options).connectingTo(connectOptions(vertx, url)).using(vertx).build();
  }

  /**
   * Through the server's Unix socket when it has one here and this Vert.x runs on the native
   * transport (Vert.x reaches domain sockets only through it); otherwise by TCP.
   */
  public static PgConnectOptions connectOptions(Vertx vertx, PgUrl url) {
    PgConnectOptions options = url.connectOptions();
    if (vertx.isNativeTransportEnabled()) {
      // (a host that starts with '/' is the socket's directory, the port names the file in it)
      url.socketFile().ifPresent(file -> options.setHost(file.getParent().toString()));
    }
    return options;
  }
}
