package dev.conclave.platform.auth;

import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records when tokens were last used, cheaply: a verification only marks the token in memory; one
 * statement per interval writes every marked token's {@code last_used_at}. The time is therefore
 * accurate to the interval, and a verification never waits for the database.
 */
public final class TokenUse {

  private static final Logger LOG = LoggerFactory.getLogger(TokenUse.class);
  static final Duration FLUSH = Duration.ofSeconds(30);
  private static final NamedStatement MARK_USED = SqlFile.of(TokenUse.class, "tokens.sql").get("MarkUsed");

  private final Set<UUID> used = ConcurrentHashMap.newKeySet();

  public void mark(UUID tokenId) {
    used.add(tokenId);
  }

  /** Writes the marks every {@link #FLUSH}. */
  public void start(Vertx vertx, Pool pool) {
    vertx.setPeriodic(FLUSH.toMillis(), t -> flush(pool));
  }

  /** Writes the marks now (also what the periodic flush does). */
  public Future<Void> flush(Pool pool) {
    if (used.isEmpty()) {
      return Future.succeededFuture();
    }
    ArrayList<UUID> batch = new ArrayList<>(used);
    used.removeAll(batch);
    return MARK_USED.with("ids", batch.toArray(new UUID[0])).execute(pool)
      .onFailure(err -> {
        used.addAll(batch);
        LOG.warn("auth: could not record token use tokens={} error={}", batch.size(), err.getMessage());
      })
      .mapEmpty();
  }
}
