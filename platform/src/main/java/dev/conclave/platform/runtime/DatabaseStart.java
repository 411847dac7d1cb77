package dev.conclave.platform.runtime;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.NodeDatabase;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The node's database, opened on a thread of its own (issue 45): embedded PostgreSQL's start is
 * mostly another process's work ({@code pg_ctl start}, then polling), so the node creates Vert.x and
 * joins its cluster meanwhile instead of waiting for it first. This build's migration scripts are read
 * on a third thread at the same time, for the history check the node then makes over its own pool
 * ({@link Migrations#pending}). {@link #await} gives the database or throws what
 * {@link NodeDatabase#open} threw, the same exception, so a PostgreSQL that does not start fails the
 * node with the message it always did.
 */
final class DatabaseStart {

  private final CompletableFuture<NodeDatabase> opening = new CompletableFuture<>();
  private final CompletableFuture<Migrations.BuildScripts> reading = new CompletableFuture<>();

  private DatabaseStart() {
  }

  /** Starts opening the database now, and reading {@code schemas}' scripts; the data dir must already be this node's. A new cluster has {@code schemas} migrated if it can. */
  static DatabaseStart begin(ConclaveConfig config, java.util.List<dev.conclave.platform.db.SchemaMigration> schemas) {
    DatabaseStart start = new DatabaseStart();
    Thread reader = new Thread(() -> {
      try {
        start.reading.complete(Migrations.scripts(schemas));
      } catch (Throwable e) {
        start.reading.completeExceptionally(e);
      }
    }, "conclave-migration-scripts");
    Thread thread = new Thread(() -> {
      try {
        start.opening.complete(NodeDatabase.open(config, schemas));
      } catch (Throwable e) {
        start.opening.completeExceptionally(e);
      }
    }, "conclave-database-start");
    // a JVM that exits mid-start (System.exit on another failure) does not wait for these threads
    reader.setDaemon(true);
    thread.setDaemon(true);
    thread.start();
    reader.start();
    return start;
  }

  /** Blocks until the database is open; rethrows its failure as it was thrown. */
  NodeDatabase await() {
    return join(opening);
  }

  /** Blocks until this build's scripts are read; rethrows the reading's failure as it was thrown. */
  Migrations.BuildScripts awaitScripts() {
    return join(reading);
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
