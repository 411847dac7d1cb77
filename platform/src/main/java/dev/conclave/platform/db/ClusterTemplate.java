package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster created and migrated once, copied into each new data dir instead of running
 * initdb and every migration there (issue 45): a cold start of a node was 1.0 to 1.3 s of initdb and
 * 2 s of Flyway applying every script to empty schemas; a copy of 40 MB and a password set take a
 * fraction of that.
 *
 * <p>A template is named by what it holds: the PostgreSQL binaries and, per schema, every migration
 * script's name and checksum. Another build (a script added or changed) names another template, built
 * on its first cold start. Building runs initdb and the migrations in a folder of its own, then
 * removes the superuser's password (nobody can log in to a template) and stops PostgreSQL cleanly,
 * and only then moves the cluster to its name. A process that dies part way leaves a build folder,
 * never a template. One process builds a template at a time (a file lock); others wait and copy it.
 *
 * <p>A copy gets the data dir's own generated password in single-user mode (no socket is open), in a
 * folder beside the data dir, and is moved into place last: a data dir holds a whole, locked cluster
 * or none. Templates are kept in a folder only this user may write ({@code templates} in zonky's
 * working directory); a folder others may write is never read, as a cluster planted there would
 * become a node's database. The three most recently used templates are kept.
 */
final class ClusterTemplate {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterTemplate.class);
  private static final int KEPT = 3;
  private static final ReentrantLock BUILDING = new ReentrantLock();
  private static final Set<PosixFilePermission> OTHERS_WRITE = Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  private final Path root;
  private final String name;
  private final List<SchemaMigration> schemas;

  private ClusterTemplate(Path root, String name, List<SchemaMigration> schemas) {
    this.root = root;
    this.name = name;
    this.schemas = List.copyOf(schemas);
  }

  /** The template for {@code schemas} in the working directory of the bundled PostgreSQL, if one can be used. */
  static Optional<ClusterTemplate> forSchemas(List<SchemaMigration> schemas) {
    Optional<String> binaries = BundledPostgres.describe(System.getProperty("os.name"), System.getProperty("os.arch"));
    if (binaries.isEmpty()) {
      return Optional.empty();
    }
    return in(BundledPostgres.DEFAULT.workingDirectory().resolve("templates"), schemas, binaries.get());
  }

  /** The template for {@code schemas} kept in {@code root}, if the scripts are readable and the folder is safely this user's. */
  static Optional<ClusterTemplate> in(Path root, List<SchemaMigration> schemas) {
    return in(root, schemas, "the class path's binaries");
  }

  private static Optional<ClusterTemplate> in(Path root, List<SchemaMigration> schemas, String binaries) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(("conclave cluster template 1\n" + binaries + "\n").getBytes(StandardCharsets.UTF_8));
      for (SchemaMigration schema : schemas) {
        Optional<MigrationScripts> scripts = MigrationScripts.of(schema, ClusterTemplate.class.getClassLoader());
        if (scripts.isEmpty()) {
          return Optional.empty();
        }
        digest.update(("schema " + schema.schema() + "\n").getBytes(StandardCharsets.UTF_8));
        for (MigrationScripts.Script script : scripts.get().scripts()) {
          digest.update((script.name() + " " + script.checksum() + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!ownFolder(root)) {
        LOG.info("database: cluster templates not used: {} is not a folder only this user may write", root);
        return Optional.empty();
      }
      // short: the build folder's socket path must stay under the 107 bytes a Unix socket's name may have
      return Optional.of(new ClusterTemplate(root, HexFormat.of().formatHex(digest.digest()).substring(0, 16), schemas));
    } catch (IOException | java.security.NoSuchAlgorithmException | RuntimeException e) {
      LOG.info("database: cluster templates not used: {}", e.getMessage());
      return Optional.empty();
    }
  }

  /** Where the template's cluster is (or will be). */
  Path directory() {
    return root.resolve(name);
  }

  /**
   * Puts a copy of the template, building the template first when there is none, into {@code cluster}
   * (which must not hold a cluster), with {@code password} as its superuser's. False when that failed
   * (logged): {@code cluster} is then as it was, and the caller creates the cluster itself.
   */
  boolean copyInto(Path cluster, String password) {
    Path copying = cluster.resolveSibling(cluster.getFileName() + ".copying");
    try {
      long t0 = System.nanoTime();
      Path template = ready();
      deleteTree(copying);
      copyTree(template, copying);
      setPassword(copying, password);
      if (Files.isDirectory(cluster)) {
        Files.delete(cluster); // the empty folder made for it; not empty means a cluster, and this throws
      }
      move(copying, cluster);
      touch(template);
      LOG.info("database: new cluster copied from template={} took={}ms", name, (System.nanoTime() - t0) / 1_000_000);
      return true;
    } catch (IOException | SQLException | RuntimeException e) {
      LOG.warn("database: could not copy the cluster template {} ({}); creating the cluster with initdb", name, e.getMessage());
      try {
        deleteTree(copying);
      } catch (IOException ignored) {
        // a leftover copy is deleted by the next attempt
      }
      return false;
    }
  }

  /** The template's folder, built first when it is missing. */
  private Path ready() throws IOException, SQLException {
    Path template = directory();
    if (complete(template)) {
      return template;
    }
    BUILDING.lock();
    try (FileChannel channel = FileChannel.open(root.resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock ignored = channel.lock()) {
      if (!complete(template)) {
        build(template);
      }
      return template;
    } finally {
      BUILDING.unlock();
    }
  }

  private void build(Path template) throws IOException, SQLException {
    long t0 = System.nanoTime();
    Path work = root.resolve("b" + ProcessHandle.current().pid());
    deleteTree(work);
    deleteTree(template);
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(work.resolve("pg"), 0, Map.of(), Optional.empty())) {
      Migrations.apply(server.url(), schemas);
      PgUrl url = server.url();
      try (Connection c = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null)); Statement s = c.createStatement()) {
        s.execute("ALTER ROLE postgres PASSWORD NULL"); // a template nobody can log in to; each copy gets its own
      }
    }
    move(work.resolve("pg"), template);
    deleteTree(work);
    LOG.info("database: cluster template={} built (initdb and {} schemas' migrations) took={}ms", name, schemas.size(),
      (System.nanoTime() - t0) / 1_000_000);
    prune();
  }

  /** Sets the copy's superuser password in single-user mode: no connection is possible meanwhile. */
  private static void setPassword(Path cluster, String password) throws IOException {
    List<String> command = new ArrayList<>(ServerUser.prefix());
    command.addAll(List.of(BundledPostgres.DEFAULT.binary("postgres").toString(), "--single", "-D", cluster.toString(),
      "-c", "listen_addresses=", "-c", "password_encryption=scram-sha-256", "postgres"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(("ALTER ROLE postgres PASSWORD '" + password.replace("'", "''") + "'\n").getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("postgres --single did not finish within 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted while setting the password", e);
    }
    if (process.exitValue() != 0 || output.contains("ERROR:") || output.contains("FATAL:")) {
      throw new IOException("postgres --single could not set the password (exit " + process.exitValue() + "): "
        + output.replace(password, "***").strip());
    }
  }

  private static boolean complete(Path template) {
    return Files.isRegularFile(template.resolve("postgresql.conf")) && Files.isRegularFile(template.resolve("global/pg_control"));
  }

  /** True when {@code root} is (or was just made) a real folder of this user's that no one else may write. */
  private static boolean ownFolder(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(root.getParent());
      try {
        Files.createDirectory(root, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException raced) {
        // another process made it: checked below like any other
      }
    }
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    String owner = Files.getOwner(root, LinkOption.NOFOLLOW_LINKS).getName();
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(root, LinkOption.NOFOLLOW_LINKS);
    return owner.equals(System.getProperty("user.name")) && permissions.stream().noneMatch(OTHERS_WRITE::contains);
  }

  private void prune() {
    try (Stream<Path> entries = Files.list(root)) {
      List<Path> templates = entries.filter(p -> p.getFileName().toString().matches("[0-9a-f]{16}") && Files.isDirectory(p))
        .sorted(Comparator.comparing(ClusterTemplate::lastUsed).reversed()).toList();
      for (Path old : templates.subList(Math.min(KEPT, templates.size()), templates.size())) {
        deleteTree(old);
        Files.deleteIfExists(root.resolve(old.getFileName() + ".lock"));
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("database: old cluster templates not pruned: {}", e.getMessage());
    }
  }

  private static long lastUsed(Path template) {
    try {
      return Files.getLastModifiedTime(template).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static void touch(Path template) {
    try {
      Files.setLastModifiedTime(template, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // only the pruning order depends on it
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(target);
          Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(source));
        } else {
          Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to);
    }
  }

  static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
