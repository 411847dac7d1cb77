package dev.conclave.node;

import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.runtime.DataDirOwner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Runs only the embedded PostgreSQL of a data dir and prints its URL, so that several local nodes
 * can share it through {@code CONCLAVE_PG_URL}. On a data dir a running node (or another postgres
 * command) holds, it prints the URL of that process's PostgreSQL and exits: it never starts a second
 * server on the same files, nor stops the holder's.
 */
@Command(name = "postgres", mixinStandardHelpOptions = true,
  description = "Run only the embedded PostgreSQL in a data dir and print its URL (for local multi-node clusters).")
final class PostgresCommand implements Runnable {

  @Option(names = "--data-dir", description = "Data dir whose pg/ holds the cluster (default: $CONCLAVE_DATA_DIR or ./data).")
  Path dataDir;

  @Option(names = "--port", defaultValue = "55432", description = "Port to listen on, on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int port;

  @Override
  public void run() {
    Path dir = (dataDir != null ? dataDir : NodeSettings.DATA_DIR.get(System.getenv())).toAbsolutePath().normalize();
    DataDirOwner.Attempt attempt = DataDirOwner.acquire(dir, "postgres", true);
    if (attempt instanceof DataDirOwner.Held held) {
      // never a second server on the same files, and never a stop of the holder's: its URL, if it runs one
      Optional<PgUrl> running = held.holder().embeddedDatabase() ? EmbeddedPostgresServer.runningUrl(dir.resolve("pg")) : Optional.empty();
      if (running.isPresent()) {
        System.out.println(running.get().full());
        System.err.println("postgres: " + dir + " belongs to " + held.holder().describe() + ", whose PostgreSQL is running: its URL is above;"
          + " nothing was started or stopped");
        System.exit(0);
        return;
      }
      System.err.println("postgres: " + dir + " is in use by " + held.holder().describe() + (held.holder().embeddedDatabase()
        ? ", which has not started its PostgreSQL yet; try again in a moment" : ", which uses an external PostgreSQL (CONCLAVE_PG_URL)"));
      System.exit(1);
      return;
    }
    DataDirOwner owner = ((DataDirOwner.Acquired) attempt).owner();
    Shutdown shutdown = new Shutdown("postgres");
    System.err.println("postgres: starting embedded PostgreSQL dir=" + dir.resolve("pg") + " port=" + port);
    EmbeddedPostgresServer server;
    try {
      server = EmbeddedPostgresServer.start(dir.resolve("pg"), port, Map.of());
    } catch (RuntimeException e) {
      shutdown.startFailed(e);
      owner.close();
      // one line that says why (a port in use, a data dir without its password file)
      System.err.println("postgres: " + e.getMessage());
      System.exit(1);
      return;
    }
    owner.endpoints("postgres=127.0.0.1:" + server.port());
    System.out.println(server.url().full());
    System.out.flush();
    System.err.println("postgres: ready; use CONCLAVE_PG_URL=" + server.url().full() + " (SIGTERM or Ctrl-C stops it)");
    shutdown.awaitThenExit(() -> {
      server.close();
      owner.close();
      System.err.println("postgres: stopped");
    });
  }
}
