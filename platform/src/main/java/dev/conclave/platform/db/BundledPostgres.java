package dev.conclave.platform.db;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import io.zonky.test.db.postgres.util.ArchUtils;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.jar.JarEntry;

/**
 * The PostgreSQL binaries for zonky, without reading them on every start (issue 45).
 *
 * <p>zonky names the directory it unpacks PostgreSQL into by the MD5 of whatever its resolver hands it,
 * so its own resolver made every start run a shell script (to name the Linux distribution) and read
 * and digest the whole bundled archive (15 MB) only to find the directory unpacked already: 0.3 to
 * 0.9 s of each start's PostgreSQL phase. This resolver hands zonky a short description of the
 * bundled archive instead (its resource, size and CRC-32, read from the jar's directory, not its
 * contents) once a directory named by that description holds the unpacked binaries. The first start
 * hands over the archive itself, as before; once zonky has unpacked it, {@link #remember} links the
 * description's directory to the unpacked one. A new archive (another build) describes itself
 * differently and is unpacked again; a link whose directory was removed counts as not unpacked.
 * When the archive is not the plain one ({@code postgres-<os>-<arch>.txz}, one on the class path,
 * no Alpine build beside it), zonky's own resolver does all of it, as before.
 */
final class BundledPostgres implements PgBinaryResolver {

  /** zonky's marker, in an unpacked directory, that the unpacking finished. */
  private static final String UNPACKED = ".exists";

  /** The one instance a process uses: zonky also remembers the directory per resolver, for the process's later starts. */
  static final BundledPostgres DEFAULT = new BundledPostgres(zonkyWorkingDirectory());

  private final Path workingDirectory;
  private final Object lock = new Object();
  /** The description of the archive handed over by the last call, and the MD5 its bytes had, until {@link #remember}. */
  private String pendingDescription;
  private MessageDigest pendingDigest;

  BundledPostgres(Path workingDirectory) {
    this.workingDirectory = workingDirectory;
  }

  /** Where zonky unpacks by default: {@code ot.epg.working-dir}, or {@code embedded-pg} in the temp directory. */
  static Path zonkyWorkingDirectory() {
    return Path.of(System.getProperty("ot.epg.working-dir", Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg").toString()));
  }

  Path workingDirectory() {
    return workingDirectory;
  }

  @Override
  public InputStream getPgBinary(String system, String machineHardware) throws IOException {
    Optional<String> description = describe(system, machineHardware);
    if (description.isPresent()) {
      byte[] bytes = description.get().getBytes(StandardCharsets.UTF_8);
      if (Files.exists(directoryFor(bytes).resolve(UNPACKED))) {
        return new ByteArrayInputStream(bytes);
      }
    }
    InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, machineHardware);
    if (description.isEmpty()) {
      return archive;
    }
    MessageDigest digest = md5();
    synchronized (lock) {
      pendingDescription = description.get();
      pendingDigest = digest;
    }
    return new FilterInputStream(archive) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          digest.update((byte) b);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          digest.update(buffer, offset, n);
        }
        return n;
      }
    };
  }

  /**
   * After zonky started from the archive itself: links the directory its description names to the
   * one zonky unpacked the archive into, so that the next start skips the archive. Best effort: a
   * failure only leaves the next start to read the archive again.
   */
  void remember() {
    String description;
    MessageDigest digest;
    synchronized (lock) {
      description = pendingDescription;
      digest = pendingDigest;
      pendingDescription = null;
      pendingDigest = null;
    }
    if (description == null) {
      return;
    }
    Path unpacked = workingDirectory.resolve("PG-" + HexFormat.of().formatHex(digest.digest()));
    if (!Files.exists(unpacked.resolve(UNPACKED))) {
      return;
    }
    Path link = directoryFor(description.getBytes(StandardCharsets.UTF_8));
    Path temporary = workingDirectory.resolve(link.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    try {
      Files.deleteIfExists(temporary);
      Files.createSymbolicLink(temporary, unpacked.getFileName());
      try {
        Files.move(temporary, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, link, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | UnsupportedOperationException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException ignored) {
        // nothing else to undo
      }
    }
  }

  /** A program of the bundled PostgreSQL, once unpacked ({@code postgres}, {@code initdb}, {@code pg_ctl}). */
  Path binary(String name) throws IOException {
    Optional<String> description = describe(System.getProperty("os.name"), System.getProperty("os.arch"));
    if (description.isEmpty()) {
      throw new IOException("the bundled PostgreSQL is not the plain archive");
    }
    Path unpacked = directoryFor(description.get().getBytes(StandardCharsets.UTF_8));
    if (!Files.exists(unpacked.resolve(UNPACKED))) {
      throw new IOException("the bundled PostgreSQL is not unpacked yet in " + workingDirectory);
    }
    return unpacked.resolve("bin").resolve(name);
  }

  private Path directoryFor(byte[] description) {
    return workingDirectory.resolve("PG-" + HexFormat.of().formatHex(md5().digest(description)));
  }

  /**
   * What identifies the archive zonky's resolver would pick, read from the class path's directory
   * (no archive bytes): empty when that pick is not plainly {@code postgres-<os>-<arch>.txz}.
   */
  static Optional<String> describe(String system, String machineHardware) {
    String platform = (system + "-" + ArchUtils.normalize(machineHardware)).replace(' ', '_').toLowerCase(Locale.ROOT);
    ClassLoader loader = DefaultPostgresBinaryResolver.class.getClassLoader();
    try {
      if (loader.getResource("postgres-" + platform + "-alpine_linux.txz") != null) {
        return Optional.empty(); // zonky would choose by distribution: let it
      }
      List<URL> found = Collections.list(loader.getResources("postgres-" + platform + ".txz"));
      if (found.size() != 1) {
        return Optional.empty();
      }
      URL url = found.get(0);
      URLConnection connection = url.openConnection();
      String identity;
      if (connection instanceof JarURLConnection jar) {
        JarEntry entry = jar.getJarEntry();
        if (entry.getSize() < 0 || entry.getCrc() < 0) {
          return Optional.empty();
        }
        identity = "size=" + entry.getSize() + " crc=" + Long.toHexString(entry.getCrc());
      } else if ("file".equals(url.getProtocol())) {
        Path file = Path.of(url.toURI());
        identity = "size=" + Files.size(file) + " modified=" + Files.getLastModifiedTime(file).toMillis();
      } else {
        return Optional.empty();
      }
      return Optional.of("conclave: the PostgreSQL binaries unpacked from " + url + " " + identity + "\n");
    } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5"); // zonky's choice for the directory's name, not a safeguard
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
