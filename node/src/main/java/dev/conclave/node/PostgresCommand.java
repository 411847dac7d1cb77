package dev.conclave.node;

import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;

/**
 * Runs only the embedded PostgreSQL of a data dir and prints its URL, so that several local nodes
 * can share it through {@code CONCLAVE_PG_URL}.
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
    Shutdown shutdown = new Shutdown("postgres");
    System.err.println("postgres: starting embedded PostgreSQL dir=" + dir.resolve("pg") + " port=" + port);
    EmbeddedPostgresServer server;
    try {
      server = EmbeddedPostgresServer.start(dir.resolve("pg"), port, Map.of());
    } catch (RuntimeException e) {
      shutdown.startFailed(e);
      // one line that says why (a port in use, a data dir without its password file)
      System.err.println("postgres: " + e.getMessage());
      System.exit(1);
      return;
    }
    System.out.println(server.url().full());
    System.out.flush();
    System.err.println("postgres: ready; use CONCLAVE_PG_URL=" + server.url().full() + " (SIGTERM or Ctrl-C stops it)");
    shutdown.awaitThenExit(() -> {
      server.close();
      System.err.println("postgres: stopped");
    });
  }
}
