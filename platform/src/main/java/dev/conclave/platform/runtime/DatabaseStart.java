package dev.conclave.platform.runtime;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.NodeDatabase;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The node's database, opened and migrated on a thread of its own (issue 45): embedded PostgreSQL's
 * start is mostly another process's work ({@code pg_ctl start}, then polling), and the migrations wait
 * on the database, so the node creates Vert.x and joins its cluster meanwhile instead of waiting for
 * them first. {@link #await} gives the database or
 * throws what {@link NodeDatabase#open} threw, the same exception, so a PostgreSQL that does not start
 * fails the node with the message it always did.
 */
final class DatabaseStart {

  private final CompletableFuture<NodeDatabase> opening = new CompletableFuture<>();
  private final CompletableFuture<Void> migrating = new CompletableFuture<>();

  private DatabaseStart() {
  }

  /** Starts opening the database now; the data dir must already be this node's. A new cluster has {@code schemas} migrated if it can. */
  static DatabaseStart begin(ConclaveConfig config, java.util.List<dev.conclave.platform.db.SchemaMigration> schemas) {
    DatabaseStart start = new DatabaseStart();
    Thread thread = new Thread(() -> {
      NodeDatabase database;
      try {
        database = NodeDatabase.open(config, schemas);
        start.opening.complete(database);
      } catch (Throwable e) {
        start.opening.completeExceptionally(e);
        start.migrating.completeExceptionally(e);
        return;
      }
      // the migrations (over JDBC: its classes, a password exchange, the history read) go on here too,
      // while the node's thread is still creating Vert.x (issue 45)
      try {
        Migrations.apply(database.url(), schemas);
        start.migrating.complete(null);
      } catch (Throwable e) {
        start.migrating.completeExceptionally(e);
      }
    }, "conclave-database-start");
    // a JVM that exits mid-start (System.exit on another failure) does not wait for this thread
    thread.setDaemon(true);
    thread.start();
    return start;
  }

  /** Blocks until the database is open; rethrows its failure as it was thrown. */
  NodeDatabase await() {
    return join(opening);
  }

  /** Blocks until {@code schemas} are migrated (after {@link #await}); rethrows the migrations' failure as it was thrown. */
  void awaitMigrations() {
    join(migrating);
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause.getMessage(), cause);
    }
  }

  /**
   * After another step of the start failed: waits for the database to finish opening and stops it,
   * so that no PostgreSQL is left running on the data dir; a failure to open is no longer news.
   */
  void abandon() {
    try {
      await().close();
    } catch (RuntimeException | Error ignored) {
      // the start is failing for another reason, which is the one to report
    }
  }
}
