package dev.conclave.e2e.support;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.testing.TestDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of the test's own (the embedded one the node uses, durable settings, on a
 * fixed port on 127.0.0.1), so a fault test can take the database away and bring it back without
 * touching the server other tests share: {@link #stop} and {@link #start} (a maintenance restart:
 * fast shutdown, sessions end, nothing committed is lost), {@link #crash} (SIGQUIT to the postmaster:
 * every backend dies at once without a checkpoint and in-flight transactions are lost, as in a
 * failover to a replica; the next start runs crash recovery).
 */
public final class OwnPostgres implements AutoCloseable {

  /** The database the nodes use on this server. */
  public static final String DATABASE = "conclave";

  private final Path directory;
  private final int port;
  private EmbeddedPostgresServer server;
  private PgUrl url;

  private OwnPostgres(Path directory, int port) {
    this.directory = directory;
    this.port = port;
  }

  /** Creates a cluster in {@code directory}, starts it and creates {@link #DATABASE}. */
  public static OwnPostgres create(Path directory) {
    OwnPostgres pg = new OwnPostgres(directory, freePortBelow32768());
    pg.start();
    TestDatabase.execute(pg.server.url(), "CREATE DATABASE " + DATABASE);
    pg.url = pg.server.url().withDatabase(DATABASE);
    return pg;
  }

  /** Starts the server again on the same directory and port (after {@link #stop} or {@link #crash}). */
  public synchronized void start() {
    if (server == null) {
      server = EmbeddedPostgresServer.start(directory, port, Map.of());
    }
  }

  /** A clean stop (PostgreSQL's fast shutdown): open sessions end, committed data is on disk. */
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /**
   * Immediate shutdown, PostgreSQL's "crash": SIGQUIT to the postmaster; every connection is cut
   * mid-transaction and nothing is checkpointed. Returns when the postmaster is gone; call
   * {@link #start} to bring the server back (it recovers from its WAL first).
   */
  public synchronized void crash() {
    if (server == null) {
      return;
    }
    long pid = postmasterPid();
    ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("postmaster " + pid + " is not running"));
    signal(pid, "QUIT");
    try {
      postmaster.onExit().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("postmaster " + pid + " did not exit within 30 s of SIGQUIT", e);
    }
    // closing the handle now finds no server to stop (it says so in the log) and releases its lock
    // on the data directory, which the next start takes again
    server.close();
    server = null;
  }

  public synchronized boolean running() {
    return server != null;
  }

  /** The nodes' database on this server (127.0.0.1, with the superuser's password). */
  public PgUrl url() {
    return url;
  }

  public int port() {
    return port;
  }

  @Override
  public synchronized void close() {
    stop();
  }

  private long postmasterPid() {
    try {
      List<String> lines = Files.readAllLines(directory.resolve("postmaster.pid"));
      return Long.parseLong(lines.get(0).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A port below the kernel's ephemeral range (the tests' rule), free now. */
  private static int freePortBelow32768() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(20_000, 32_000);
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress("127.0.0.1", candidate));
        return candidate;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IllegalStateException("no free port between 20000 and 32000");
  }
}
