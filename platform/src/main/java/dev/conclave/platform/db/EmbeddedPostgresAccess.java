package dev.conclave.platform.db;

import dev.conclave.platform.files.PrivateFiles;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Who may reach the embedded PostgreSQL: only who holds its password. The superuser has a generated
 * password kept next to the cluster in a 0600 file ({@code pg.password} beside {@code pg/}); every
 * connection, local or TCP, authenticates with SCRAM-SHA-256; the server listens on 127.0.0.1 only
 * and its Unix socket lives in a private (0700) directory. A cluster created before this (trusting
 * every local connection) is locked the first time it starts.
 */
final class EmbeddedPostgresAccess {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresAccess.class);

  /** Every connection authenticates with the password; nothing is trusted. */
  static final String HBA = """
    # Written by Conclave: every connection authenticates with the password in ../pg.password.
    # TYPE  DATABASE  USER  ADDRESS       METHOD
    local   all       all                 scram-sha-256
    host    all       all   127.0.0.1/32  scram-sha-256
    host    all       all   ::1/128       scram-sha-256
    """;

  private final Path cluster;

  EmbeddedPostgresAccess(Path cluster) {
    this.cluster = cluster;
  }

  Path passwordFile() {
    return passwordFile(cluster);
  }

  static Path passwordFile(Path cluster) {
    return cluster.resolveSibling(cluster.getFileName() + ".password");
  }

  Path socketDirectory() {
    return cluster.resolveSibling(cluster.getFileName() + ".socket");
  }

  /** The password of the cluster, if it has one yet. */
  static Optional<String> password(Path cluster) {
    try {
      Path file = passwordFile(cluster);
      return Files.isRegularFile(file) ? Optional.of(Files.readString(file).trim()).filter(p -> !p.isEmpty()) : Optional.empty();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read the embedded PostgreSQL password in " + passwordFile(cluster), e);
    }
  }

  /** The cluster's password, generated (and kept in the 0600 file) when there is none. */
  String ensurePassword() throws IOException {
    Optional<String> existing = password(cluster);
    if (existing.isPresent()) {
      return existing.get();
    }
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    PrivateFiles.write(passwordFile(), password + "\n");
    return password;
  }

  /** The private socket directory, created owner-only. */
  Path ensureSocketDirectory() throws IOException {
    Path dir = socketDirectory();
    Files.createDirectories(dir);
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: nothing stricter to set
    }
    return dir;
  }

  /** True when the cluster exists and its pg_hba.conf still trusts some connections (made before the lock-down). */
  boolean trusting() throws IOException {
    Path hba = cluster.resolve("pg_hba.conf");
    if (!Files.isRegularFile(hba)) {
      return false;
    }
    List<String> rules = Files.readAllLines(hba).stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    return rules.stream().anyMatch(l -> l.matches(".*\\btrust\\b.*"));
  }

  /**
   * Locks a running cluster that still trusts connections: sets the superuser's password, then
   * replaces pg_hba.conf and reloads it. From then on only the password gets in.
   */
  void lock(EmbeddedPostgres running, String password) throws IOException {
    try (Connection c = running.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("SET password_encryption = 'scram-sha-256'");
      s.execute("ALTER ROLE postgres WITH PASSWORD '" + password.replace("'", "''") + "'");
      Files.writeString(cluster.resolve("pg_hba.conf"), HBA);
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new IOException("could not lock the embedded PostgreSQL in " + cluster + ": " + e.getMessage(), e);
    }
    LOG.info("database: the embedded PostgreSQL now takes only password connections (password in {})", passwordFile());
  }
}
