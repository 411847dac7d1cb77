package dev.conclave.platform.db;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL started on a cluster that exists and takes only its password, without zonky (issue 45):
 * zonky's start ran a shell script to name the Linux distribution and a probe of {@code unshare} in
 * two processes, then polled with a JDBC connection every 100 ms, which loaded the JDBC driver and
 * ran a password exchange on the start's path. Here {@code pg_ctl} starts the postmaster (in a
 * session of its own, so a Ctrl-C meant for the node does not reach it) without waiting, and the
 * start is over when the postmaster's own {@code postmaster.pid} says {@code ready}: what
 * {@code pg_ctl -w} itself checks, read every 5 ms. The postmaster writes its log to {@code pg.log}
 * beside the cluster; a postmaster that fails before it is ready fails the start with its last lines.
 */
final class Postmaster {

  private static final Duration POLL = Duration.ofMillis(5);
  private static final int LOG_LINES_KEPT = 20;

  private final Path cluster;
  private final int port;

  private Postmaster(Path cluster, int port) {
    this.cluster = cluster;
    this.port = port;
  }

  /** Starts the postmaster on {@code cluster} with {@code settings} ({@code -c} options) and waits until it accepts connections. */
  static Postmaster start(Path cluster, int port, Map<String, String> settings, Duration patience) throws IOException {
    Optional<Long> stale = pidFileEntry(cluster, 0).map(Long::parseLong);
    long startedAt = System.currentTimeMillis() / 1000 - 1;
    Path log = logFile(cluster);
    long logFrom = Files.exists(log) ? Files.size(log) : 0;
    List<String> options = new ArrayList<>(List.of("-p", Integer.toString(port)));
    settings.forEach((name, value) -> options.addAll(List.of("-c", name + "=" + value)));
    List<String> command = new ArrayList<>(ServerUser.prefix());
    command.addAll(List.of(BundledPostgres.DEFAULT.binary("pg_ctl").toString(), "-D", cluster.toString(), "-W", "-s",
      "-l", log.toString(), "-o", String.join(" ", options), "start"));
    // the postmaster writes to the log file, not to a pipe of this process: the JDK closes a child's
    // pipe when the child (pg_ctl) exits, and the postmaster outlives it
    Process pgCtl = new ProcessBuilder(command).redirectErrorStream(true).start();
    String pgCtlOutput = new String(pgCtl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    long deadline = System.nanoTime() + patience.toNanos();
    while (System.nanoTime() < deadline) {
      if (ready(cluster, stale, startedAt)) {
        return new Postmaster(cluster, port);
      }
      if (!pgCtl.isAlive()) {
        if (pgCtl.exitValue() != 0) {
          throw new IOException("pg_ctl could not start PostgreSQL in " + cluster + ": " + pgCtlOutput + " " + tail(log, logFrom));
        }
        if (gone(cluster, stale, startedAt, log, logFrom)) {
          throw new IOException("PostgreSQL did not start in " + cluster + ": " + tail(log, logFrom));
        }
      }
      sleep(POLL);
    }
    throw new IOException("PostgreSQL in " + cluster + " was not ready within " + patience.toSeconds() + " s: " + tail(log, logFrom));
  }

  /**
   * True when this start's postmaster has exited: its postmaster.pid names a process that is gone, or
   * there is none and the log says the server stopped or refused to start. A client's connection
   * refused while the server starts ("the database system is starting up") is not the server's end.
   */
  private static boolean gone(Path cluster, Optional<Long> stale, long startedAt, Path log, long logFrom) {
    List<String> lines = pidFile(cluster);
    if (lines.size() >= 3) {
      try {
        long pid = Long.parseLong(lines.get(0).trim());
        long started = Long.parseLong(lines.get(2).trim());
        if (started >= startedAt && !(stale.isPresent() && stale.get() == pid)) {
          return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        }
      } catch (NumberFormatException e) {
        return false; // being written
      }
    }
    String written = tail(log, logFrom);
    return written.contains("database system is shut down") || written.contains("PANIC:")
      || written.lines().anyMatch(l -> l.contains("FATAL:") && !l.contains("the database system is starting up")
        && !l.contains("password authentication failed") && !l.contains("no pg_hba.conf entry"));
  }

  /** Where the postmaster started here writes its log: {@code pg.log} beside the cluster. */
  static Path logFile(Path cluster) {
    return cluster.resolveSibling(cluster.getFileName() + ".log");
  }

  /** The last lines written to {@code log} since {@code from}, joined for a message. */
  private static String tail(Path log, long from) {
    try {
      byte[] all = Files.readAllBytes(log);
      String written = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from), StandardCharsets.UTF_8);
      List<String> lines = written.lines().toList();
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - LOG_LINES_KEPT), lines.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  int port() {
    return port;
  }

  /** Fast shutdown (sessions end, data is flushed), waiting up to 30 s. */
  void stop() throws IOException {
    List<String> command = new ArrayList<>(ServerUser.prefix());
    command.addAll(List.of(BundledPostgres.DEFAULT.binary("pg_ctl").toString(), "-D", cluster.toString(), "stop", "-m", "fast",
      "-t", "30", "-w", "-s"));
    Process pgCtl = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(pgCtl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    try {
      if (!pgCtl.waitFor(40, TimeUnit.SECONDS) || pgCtl.exitValue() != 0) {
        throw new IOException("pg_ctl stop failed on " + cluster + ": " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping PostgreSQL in " + cluster, e);
    }
  }

  /** True when postmaster.pid is this start's (not a dead one's) and says the server accepts connections. */
  private static boolean ready(Path cluster, Optional<Long> stale, long startedAt) {
    List<String> lines = pidFile(cluster);
    if (lines.size() < 8 || !"ready".equals(lines.get(7).trim())) {
      return false;
    }
    try {
      long pid = Long.parseLong(lines.get(0).trim());
      long started = Long.parseLong(lines.get(2).trim());
      return started >= startedAt && !(stale.isPresent() && stale.get() == pid);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static Optional<String> pidFileEntry(Path cluster, int line) {
    List<String> lines = pidFile(cluster);
    return lines.size() > line ? Optional.of(lines.get(line).trim()).filter(s -> s.matches("\\d+")) : Optional.empty();
  }

  private static List<String> pidFile(Path cluster) {
    try {
      return Files.readAllLines(cluster.resolve("postmaster.pid"), StandardCharsets.UTF_8);
    } catch (IOException | java.io.UncheckedIOException e) {
      return List.of(); // not there yet, or being rewritten
    }
  }

  private static void sleep(Duration d) throws IOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while PostgreSQL started", e);
    }
  }
}
