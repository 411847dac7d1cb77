package dev.conclave.platform.cluster;

import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a database to one cluster of gateway nodes. Gateway nodes that share a database must see one
 * another: a gateway that starts, or sees a member leave, ends the requests in flight on every node
 * it cannot see, as their node is gone as far as it knows. A standalone node sees no one, so it
 * takes the database for itself, and clustered nodes share it.
 *
 * <p>The claim is a PostgreSQL advisory lock that one connection of its own holds for the node's
 * life: exclusive for a standalone node, shared for a clustered one. It ends with the connection,
 * so a node that dies lets go at once. A host that vanishes lets go when PostgreSQL's TCP keepalive
 * on the connection notices, after about 30 s. A node that finds the database taken waits for it
 * (a restart or a rolling update overlaps the old node by a few seconds), with a line at once and every 5 s,
 * and then refuses to start with a configuration error that names who holds it.
 *
 * <p>When the connection drops (PostgreSQL restarted) the node takes the claim again as soon as it
 * can connect; a node that finds it taken meanwhile logs an error naming the holder, every minute,
 * until it has it. The node is not ready ({@code /health/ready}) while it does not hold it.
 */
public final class DatabaseClaim {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseClaim.class);

  /** The advisory lock's key: "Conclave" in ASCII. */
  static final long KEY = 0x436f6e636c617665L;
  private static final Duration RETRY = Duration.ofSeconds(1);
  private static final Duration PROGRESS = Duration.ofSeconds(5);
  private static final Duration RETAKE = Duration.ofSeconds(2);
  private static final Duration CONFLICT_LOG = Duration.ofMinutes(1);

  /** Taking the lock, and who else holds it (from pg_locks and pg_stat_activity). */
  private static final SqlFile SQL = SqlFile.of(DatabaseClaim.class, "claim.sql");

  /** One holder of the lock: its connection's application name, where it connects from, since when. */
  record Holder(String name, String client, String since, boolean exclusive) {
    @Override
    public String toString() {
      return (name == null || name.isEmpty() ? "an unnamed connection" : name) + " from " + client + " since " + since;
    }
  }

  private final Vertx vertx;
  private final PgConnectOptions options;
  private final boolean standalone;
  private final String database;
  private volatile PgConnection connection;
  private volatile boolean closed;
  /** The lock is this node's now (false while it waits, and from a dropped connection until taken again). */
  private volatile boolean held;
  private long lastConflictLog;

  private DatabaseClaim(Vertx vertx, PgConnectOptions options, boolean standalone, String database) {
    this.vertx = vertx;
    this.options = options;
    this.standalone = standalone;
    this.database = database;
  }

  /**
   * Takes the database for this node: exclusively when {@code standalone}, else shared with the
   * other clustered nodes. Fails with a {@link ConfigException} when it is still taken after
   * {@code patience}.
   */
  public static Future<DatabaseClaim> take(Vertx vertx, PgUrl url, boolean standalone, String nodeId, Duration patience) {
    PgConnectOptions options = new PgConnectOptions(PgPools.connectOptions(vertx, url))
      .addProperty("application_name", truncate("conclave " + (standalone ? "standalone" : "clustered") + " node " + nodeId))
      // a holder whose host vanished lets go within about 30 s (ignored on a Unix socket, where no host can vanish)
      .addProperty("tcp_keepalives_idle", "15")
      .addProperty("tcp_keepalives_interval", "5")
      .addProperty("tcp_keepalives_count", "3");
    DatabaseClaim claim = new DatabaseClaim(vertx, options, standalone, url.database());
    Promise<DatabaseClaim> taken = Promise.promise();
    long now = System.nanoTime();
    // (the first conflict is told at once, then every PROGRESS)
    claim.attempt(now, patience, now - PROGRESS.toNanos(), taken);
    return taken.future();
  }

  /** Whether this node holds its claim now; the node's readiness reports it. */
  public boolean held() {
    return held;
  }

  /** Lets go of the database. */
  public Future<Void> close() {
    closed = true;
    held = false;
    PgConnection open = connection;
    connection = null;
    return open == null ? Future.succeededFuture() : open.close();
  }

  private void attempt(long start, Duration patience, long lastProgress, Promise<DatabaseClaim> taken) {
    tryOnce().onComplete(ar -> {
      if (ar.succeeded() && ar.result().isEmpty()) {
        held = true;
        taken.complete(this);
        return;
      }
      long now = System.nanoTime();
      long waited = now - start;
      String why = ar.succeeded() ? who(ar.result()) + " to let go of database " + database
        : "PostgreSQL to answer: " + ar.cause().getMessage();
      if (waited >= patience.toNanos()) {
        close();
        taken.fail(ar.succeeded() ? conflict(ar.result())
          : new IllegalStateException("could not take database " + database + " for this node: " + ar.cause().getMessage(), ar.cause()));
        return;
      }
      long progress = lastProgress;
      if (now - lastProgress >= PROGRESS.toNanos()) {
        LOG.info("database: waiting for {} ({} s of {} s)", why, waited / 1_000_000_000, patience.toSeconds());
        progress = now;
      }
      long next = progress;
      vertx.setTimer(RETRY.toMillis(), t -> attempt(start, patience, next, taken));
    });
  }

  /** Connects when needed and tries the lock once: no holders when taken, else who holds it. */
  private Future<List<Holder>> tryOnce() {
    Future<PgConnection> connected = connection != null ? Future.succeededFuture(connection) : PgConnection.connect(vertx, options)
      .onSuccess(c -> {
        if (closed) {
          // let go while connecting: the lock taken on it goes with it
          c.close();
          return;
        }
        connection = c;
        c.closeHandler(v -> lost(c));
      });
    NamedStatement lock = SQL.get(standalone ? "TryExclusive" : "TryShared");
    return connected.compose(c -> lock.with("key", KEY).execute(c).compose(rows -> {
      if (rows.iterator().next().getBoolean("taken")) {
        return Future.succeededFuture(List.<Holder>of());
      }
      return SQL.get("Holders").with("key_high", KEY >>> 32).with("key_low", KEY & 0xffffffffL).execute(c).map(holders -> {
        List<Holder> out = new ArrayList<>();
        for (Row r : holders) {
          out.add(new Holder(r.getString("application_name"), r.getString("client"), r.getString("since"),
            r.getString("mode").startsWith("Exclusive")));
        }
        return out;
      });
    }));
  }

  /** The connection that held the claim dropped: take it again once PostgreSQL answers. */
  private void lost(PgConnection dropped) {
    if (closed || connection != dropped) {
      return;
    }
    connection = null;
    held = false;
    LOG.warn("database: the connection holding this node's claim on database {} dropped; taking it again", database);
    retake();
  }

  private void retake() {
    if (closed) {
      return;
    }
    tryOnce().onComplete(ar -> {
      if (closed) {
        close();
        return;
      }
      if (ar.succeeded() && ar.result().isEmpty()) {
        held = true;
        LOG.info("database: this node's claim on database {} is held again", database);
        return;
      }
      if (ar.succeeded() && System.nanoTime() - lastConflictLog >= CONFLICT_LOG.toNanos()) {
        lastConflictLog = System.nanoTime();
        LOG.error("database: {}", conflict(ar.result()).getMessage());
      }
      vertx.setTimer(RETAKE.toMillis(), t -> retake());
    });
  }

  /** Who holds the lock, as the waiting line and the error name it. */
  private static String who(List<Holder> holders) {
    if (holders.isEmpty()) {
      return "another gateway node (it just let go)";
    }
    return (holders.stream().anyMatch(Holder::exclusive) ? "a standalone gateway node" : "a cluster of gateway nodes")
      + " (" + String.join("; ", holders.stream().map(Holder::toString).toList()) + ")";
  }

  /** Why this node may not use the database, with what to change. */
  ConfigException conflict(List<Holder> holders) {
    String variables = NodeSettings.CLUSTER_MEMBERS.name() + " or " + NodeSettings.CLUSTER_K8S_DNS.name();
    boolean standaloneHolder = holders.stream().anyMatch(Holder::exclusive);
    String fix;
    if (standalone && !standaloneHolder) {
      fix = "join their cluster: set " + variables + " on this node as on theirs";
    } else if (standalone) {
      fix = "gateway nodes on one database must form one cluster: set " + variables + " on every node, or give this node a database of its own";
    } else {
      fix = "that node runs without a cluster, so it would end this cluster's requests as a dead node's: set " + variables
        + " on it too, or stop it";
    }
    return new ConfigException(NodeSettings.CLUSTER_MEMBERS.name(), "database " + database + " is in use by " + who(holders) + "; " + fix);
  }

  private static String truncate(String name) {
    // PostgreSQL keeps 63 bytes of an application name
    return name.length() <= 63 ? name : name.substring(0, 63);
  }
}
