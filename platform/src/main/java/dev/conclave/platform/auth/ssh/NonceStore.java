package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * The nonces of accepted SSH-signed calls ({@code auth.ssh_nonces}), so that each nonce is used once
 * per key across the whole cluster. PostgreSQL decides: the row's primary key makes the first insert
 * win and every later one (any node, any moment) insert nothing, with no read-then-write window.
 *
 * <p>A row is only needed while its timestamp could still pass the validity check, so rows older
 * than {@link #RETENTION} are deleted by a periodic, bounded, set-based statement that any number of
 * nodes may run at once.
 */
public final class NonceStore {

  private static final Logger LOG = LoggerFactory.getLogger(NonceStore.class);

  /** The validity window plus a margin for clocks of nodes that disagree by up to five minutes. */
  static final Duration RETENTION = SshAgentCredentials.MAX_AGE.plus(Duration.ofMinutes(5));
  static final Duration SWEEP_INTERVAL = Duration.ofSeconds(60);
  static final int SWEEP_BATCH = 5000;
  private static final int MAX_BATCHES_PER_SWEEP = 20;
  private static final SqlFile SQL = SqlFile.of(NonceStore.class, "nonces.sql");

  private final Pool pool;

  public NonceStore(Pool pool) {
    this.pool = pool;
  }

  /** True when this call recorded the nonce first; false when it was used before with this key. */
  public Future<Boolean> use(String fingerprint, String nonce, Instant signedAt) {
    return SQL.get("Use").with("fingerprint", fingerprint).with("nonce", nonce).with("signed_at", signedAt.atOffset(ZoneOffset.UTC))
      .execute(pool)
      .map(result -> result.rowCount() == 1);
  }

  /** Deletes up to {@link #SWEEP_BATCH} rows signed before {@code cutoff}; returns how many went. */
  public Future<Integer> deleteSignedBefore(Instant cutoff) {
    return SQL.get("DeleteSignedBefore").with("cutoff", cutoff.atOffset(ZoneOffset.UTC)).with("limit", SWEEP_BATCH).execute(pool)
      .map(result -> result.rowCount());
  }

  /** Sweeps expired rows now and then every {@link #SWEEP_INTERVAL}; returns the timer id. */
  public long sweepPeriodically(Vertx vertx, Clock clock) {
    return vertx.setPeriodic(SWEEP_INTERVAL.toMillis(), SWEEP_INTERVAL.toMillis(), id -> sweep(clock.instant().minus(RETENTION), 0)
      .onFailure(err -> LOG.warn("auth: sweeping expired ssh nonces failed error={}", err.getMessage())));
  }

  private Future<Integer> sweep(Instant cutoff, int batches) {
    return deleteSignedBefore(cutoff).compose(deleted -> deleted == SWEEP_BATCH && batches + 1 < MAX_BATCHES_PER_SWEEP
      ? sweep(cutoff, batches + 1).map(more -> deleted + more)
      : Future.succeededFuture(deleted));
  }
}
