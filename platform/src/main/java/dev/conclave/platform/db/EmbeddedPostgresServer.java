package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A PostgreSQL server run from zonky's embedded binaries, with its cluster in a directory that
 * outlives the process: the same directory on the next start holds the same data. Only the holder of
 * its generated password gets in ({@link EmbeddedPostgresAccess}).
 *
 * <p>A process killed with SIGKILL leaves its postmaster running. Starting again on the same
 * directory first stops that orphan, so a crashed node restarts without help.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  private static final Duration ORPHAN_STOP_WAIT = Duration.ofSeconds(30);
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

  /** PostgreSQL's own safe defaults, restored over zonky's test-oriented ones. */
  static final Map<String, String> DURABLE = Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on");

  private final Running postgres;
  private final Path directory;
  private final String password;
  private final Path socketDirectory;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedPostgresServer(Running postgres, Path directory, String password, Path socketDirectory) {
    this.postgres = postgres;
    this.directory = directory;
    this.password = password;
    this.socketDirectory = socketDirectory;
  }

  /**
   * Starts PostgreSQL on the cluster in {@code directory}, creating the cluster on first use.
   *
   * @param port the port to listen on, or {@code 0} for any free port
   * @param settings extra server settings (postgresql.conf names)
   */
  public static EmbeddedPostgresServer start(Path directory, int port, Map<String, String> settings) {
    return start(directory, port, settings, Optional.empty());
  }

  /**
   * As {@link #start(Path, int, Map)}; a cluster created on first use is copied from {@code template}
   * (created and migrated once, see {@link ClusterTemplate}) when there is one, else made by initdb.
   */
  static EmbeddedPostgresServer start(Path directory, int port, Map<String, String> settings, Optional<ClusterTemplate> template) {
    try {
      Files.createDirectories(directory);
      stopOrphan(directory);
      EmbeddedPostgresAccess access = new EmbeddedPostgresAccess(directory);
      boolean fresh = !Files.exists(directory.resolve("postgresql.conf"));
      boolean trusting = access.trusting();
      if (!fresh && !trusting && EmbeddedPostgresAccess.password(directory).isEmpty()) {
        throw new IllegalStateException("the embedded PostgreSQL in " + directory + " takes only its password, and "
          + access.passwordFile() + " (where it is kept) is missing: restore it from a backup of the data dir");
      }
      if (port != 0) {
        requireFree(port);
      }
      String password = access.ensurePassword();
      if (fresh && template.isPresent() && template.get().copyInto(directory, password)) {
        fresh = false;
      }
      int chosenPort = port == 0 ? freePort() : port;
      Map<String, String> config = new LinkedHashMap<>();
      config.put("max_connections", "300");
      config.put("listen_addresses", "127.0.0.1");
      config.put("unix_socket_directories", access.ensureSocketDirectory().toString());
      config.put("password_encryption", "scram-sha-256");
      config.put("timezone", "UTC");
      config.putAll(DURABLE);
      config.putAll(settings);
      Optional<Running> direct = fresh || trusting ? Optional.empty() : startDirectly(directory, chosenPort, config);
      if (direct.isPresent()) {
        return new EmbeddedPostgresServer(direct.get(), directory, password, access.socketDirectory());
      }
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
        .setDataDirectory(directory)
        .setCleanDataDirectory(false)
        .setPort(chosenPort)
        .setPGStartupWait(STARTUP_WAIT)
        // the binaries without reading the 15 MB archive on every start, once unpacked (issue 45)
        .setPgBinaryResolver(BundledPostgres.DEFAULT)
        .setOverrideWorkingDirectory(BundledPostgres.DEFAULT.workingDirectory().toFile())
        // what zonky's own readiness check connects with
        .setConnectConfig("password", password);
      if (fresh) {
        // initdb's later --auth overrides zonky's "-A trust": the new cluster never trusts anyone
        builder.setLocaleConfig("auth", "scram-sha-256").setLocaleConfig("pwfile", access.passwordFile().toString());
      }
      // zonky is made for tests: it starts postgres with -F (fsync off) and synchronous_commit off.
      // This server holds users' data, so a commit must be on disk before it is acknowledged;
      // these -c options (DURABLE among them) come after -F on the command line and win.
      config.forEach(builder::setServerConfig);
      EmbeddedPostgres postgres = builder.start();
      ZonkyHook.disarm(postgres);
      BundledPostgres.DEFAULT.remember();
      if (trusting) {
        access.lock(postgres, password);
      }
      return new EmbeddedPostgresServer(zonky(postgres), directory, password, access.socketDirectory());
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start in " + directory + ": " + e.getMessage(), e);
    }
  }

  /**
   * A cluster that exists and takes only its password starts without zonky ({@link Postmaster}), once
   * the bundled binaries are unpacked; empty when they are not yet, and zonky starts it (and unpacks).
   */
  private static Optional<Running> startDirectly(Path directory, int port, Map<String, String> config) throws IOException {
    try {
      BundledPostgres.DEFAULT.binary("pg_ctl");
    } catch (IOException notUnpacked) {
      return Optional.empty();
    }
    Postmaster postmaster = Postmaster.start(directory, port, config, STARTUP_WAIT);
    return Optional.of(new Running() {
      @Override
      public int port() {
        return postmaster.port();
      }

      @Override
      public void stop() throws IOException {
        postmaster.stop();
      }
    });
  }

  private static Running zonky(EmbeddedPostgres postgres) {
    return new Running() {
      @Override
      public int port() {
        return postgres.getPort();
      }

      @Override
      public void stop() throws IOException {
        ZonkyHook.rearm(postgres);
        postgres.close();
      }
    };
  }

  /** The server as started: by zonky (which created the cluster, or locked an old one) or by a {@link Postmaster}. */
  private interface Running {
    int port();

    void stop() throws IOException;
  }

  public int port() {
    return postgres.port();
  }

  public Path directory() {
    return directory;
  }

  /** The URL with the superuser's password: only it gets in. */
  public PgUrl url() {
    return PgUrl.local(port(), password).withSocketDirectory(socketDirectory);
  }

  /** Where the superuser's password is kept (0600), for people and tools that connect by hand. */
  public static Path passwordFile(Path directory) {
    return EmbeddedPostgresAccess.passwordFile(directory);
  }

  /** Stops the server (fast shutdown: sessions end, data is flushed). */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      postgres.stop();
    } catch (IOException e) {
      LOG.warn("embedded PostgreSQL did not stop cleanly dir={} error={}", directory, e.getMessage());
    }
  }

  /**
   * The port of a postmaster that is running on {@code directory} right now, if any; read from
   * postmaster.pid, so other processes (the token CLI) can reach a node's embedded database.
   */
  public static Optional<Integer> runningPort(Path directory) {
    Optional<PidFile> pid = PidFile.read(directory);
    return pid.filter(PidFile::alive).map(PidFile::port);
  }

  /** The URL (with the password) of a postmaster running on {@code directory} right now, if any. */
  public static Optional<PgUrl> runningUrl(Path directory) {
    return runningPort(directory).map(port -> PgUrl.local(port, EmbeddedPostgresAccess.password(directory)
      .orElseThrow(() -> new IllegalStateException("the embedded PostgreSQL in " + directory + " runs, but "
        + EmbeddedPostgresAccess.passwordFile(directory) + " is missing")))
      .withSocketDirectory(new EmbeddedPostgresAccess(directory).socketDirectory()));
  }

  private static void stopOrphan(Path directory) {
    Optional<PidFile> pid = PidFile.read(directory);
    if (pid.isEmpty() || !pid.get().alive()) {
      return;
    }
    ProcessHandle orphan = ProcessHandle.of(pid.get().pid()).orElseThrow();
    LOG.warn("database: stopping a PostgreSQL left running on this data dir by an earlier process pid={} dir={}", pid.get().pid(), directory);
    // SIGTERM is PostgreSQL's smart shutdown; its old clients died with the old process.
    orphan.destroy();
    try {
      orphan.onExit().get(ORPHAN_STOP_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("a PostgreSQL (pid " + pid.get().pid() + ") still runs on " + directory
        + " and did not stop within " + ORPHAN_STOP_WAIT.toSeconds() + " s; stop it, then start again");
    }
  }

  /**
   * Fails at once, in the words PostgreSQL itself would log, when the port is taken: PostgreSQL would
   * exit at start, but the embedded server's readiness check would wait its full minute in silence.
   */
  private static void requireFree(int port) throws IOException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true); // as PostgreSQL binds: a port in TIME_WAIT is free
      probe.bind(new java.net.InetSocketAddress("127.0.0.1", port));
    } catch (java.net.BindException e) {
      throw new IllegalStateException("embedded PostgreSQL cannot listen on 127.0.0.1:" + port
        + ": could not bind IPv4 address \"127.0.0.1\": Address already in use (another PostgreSQL, or another program, "
        + "holds the port: stop it or choose another port)");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /** The first lines of postmaster.pid: pid, data dir, start time, port. */
  private record PidFile(long pid, int port) {

    static Optional<PidFile> read(Path directory) {
      Path file = directory.resolve("postmaster.pid");
      if (!Files.isRegularFile(file)) {
        return Optional.empty();
      }
      try {
        List<String> lines = Files.readAllLines(file);
        if (lines.size() < 4) {
          return Optional.empty();
        }
        return Optional.of(new PidFile(Long.parseLong(lines.get(0).trim()), Integer.parseInt(lines.get(3).trim())));
      } catch (IOException | NumberFormatException e) {
        return Optional.empty();
      }
    }

    boolean alive() {
      return ProcessHandle.of(pid).map(h -> h.isAlive() && h.info().command().map(c -> c.contains("postgres")).orElse(true)).orElse(false);
    }
  }
}
