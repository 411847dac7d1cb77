package dev.conclave.platform.db;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The migration scripts of one schema as this build carries them ({@code classpath:db/<schema>}),
 * each with the checksum Flyway records for it: the CRC-32 of the script's lines, each without its
 * line ending, in UTF-8, a byte-order mark dropped. Read without Flyway, so that a node whose
 * database already has every script applied need not start Flyway at all ({@link AppliedMigrations}).
 *
 * <p>Only a plain layout is read: {@code V<version>__<description>.sql} and {@code R__<description>.sql}
 * directly in the folder. Anything else there (a subfolder with scripts, another kind of script)
 * makes {@link #of} answer empty, and Flyway then does all the work, as before.
 */
record MigrationScripts(String schema, List<Script> scripts) {

  private static final Pattern VERSIONED = Pattern.compile("V([0-9][0-9._]*)__(.+)\\.sql");
  private static final Pattern REPEATABLE = Pattern.compile("R__(.+)\\.sql");
  private static final java.util.Map<String, List<String>> JAR_LISTINGS = new java.util.concurrent.ConcurrentHashMap<>();
  /** How many times a jar's directory was walked, for the test that it is once per jar. */
  static final java.util.concurrent.atomic.AtomicInteger JAR_WALKS = new java.util.concurrent.atomic.AtomicInteger();

  /** One script: its file name (what Flyway's history records as {@code script}) and checksum. */
  record Script(String name, int checksum) {

    boolean repeatable() {
      return name.startsWith("R__");
    }
  }

  MigrationScripts {
    scripts = List.copyOf(scripts);
  }

  /** The scripts of {@code schema} on {@code loader}'s class path, or empty when their layout is not a plain one. */
  static Optional<MigrationScripts> of(SchemaMigration schema, ClassLoader loader) {
    String folder = "db/" + schema.schema();
    try {
      List<URL> roots = Collections.list(loader.getResources(folder));
      if (roots.isEmpty()) {
        return Optional.empty();
      }
      List<Script> scripts = new ArrayList<>();
      for (URL root : roots) {
        boolean plain = switch (root.getProtocol()) {
          case "file" -> fromDirectory(Path.of(root.toURI()), scripts);
          case "jar" -> fromJar(((JarURLConnection) root.openConnection()).getJarFile(), folder + "/", scripts);
          default -> false;
        };
        if (!plain) {
          return Optional.empty();
        }
      }
      return Optional.of(new MigrationScripts(schema.schema(), scripts));
    } catch (IOException | URISyntaxException | RuntimeException e) {
      return Optional.empty(); // Flyway reads them its own way and says what is wrong
    }
  }

  private static boolean fromDirectory(Path dir, List<Script> scripts) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (Files.isDirectory(file) || !known(name)) {
          return false;
        }
        try (InputStream in = Files.newInputStream(file)) {
          scripts.add(new Script(name, checksum(in)));
        }
      }
    }
    return true;
  }

  private static boolean fromJar(JarFile jar, String prefix, List<Script> scripts) throws IOException {
    for (String entryName : listing(jar)) {
      if (!entryName.startsWith(prefix) || entryName.equals(prefix)) {
        continue;
      }
      String name = entryName.substring(prefix.length());
      JarEntry entry = jar.getJarEntry(entryName);
      if (entry.isDirectory() || name.contains("/") || !known(name)) {
        return false;
      }
      try (InputStream in = jar.getInputStream(entry)) {
        scripts.add(new Script(name, checksum(in)));
      }
    }
    return true;
  }

  /**
   * The names of {@code jar}'s entries under {@code db/}, walked once per process: a walk reads the jar's
   * whole directory (32,000 entries in the node's jar, 0.1 to 0.3 s on a starting JVM), and a node
   * reads four schemas from the same jar (issue 45).
   */
  private static List<String> listing(JarFile jar) {
    java.io.File file = new java.io.File(jar.getName());
    // keyed by the file as it is now: a jar rewritten in place (a test's) is walked again
    return JAR_LISTINGS.computeIfAbsent(jar.getName() + " " + file.length() + " " + file.lastModified(), key -> {
      JAR_WALKS.incrementAndGet();
      List<String> names = new ArrayList<>();
      Enumeration<JarEntry> entries = jar.entries();
      while (entries.hasMoreElements()) {
        String entry = entries.nextElement().getName();
        if (entry.startsWith("db/")) {
          names.add(entry);
        }
      }
      return List.copyOf(names);
    });
  }

  private static boolean known(String name) {
    return VERSIONED.matcher(name).matches() || REPEATABLE.matcher(name).matches();
  }

  /** Flyway's checksum of a script: CRC-32 over each line's UTF-8 bytes, line endings left out, a leading BOM dropped. */
  static int checksum(InputStream in) {
    CRC32 crc = new CRC32();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 4096)) {
      String line = lines.readLine();
      if (line != null && line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
      while (line != null) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
        line = lines.readLine();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (int) crc.getValue();
  }
}
