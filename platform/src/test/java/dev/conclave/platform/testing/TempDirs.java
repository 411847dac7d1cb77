package dev.conclave.platform.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Temporary directories a test helper makes for tests that outlive a single test method (a node's data
 * directory, a certificate set): each is deleted, with what is in it, when the JVM ends, so that a
 * build leaves nothing in {@code /tmp}.
 */
public final class TempDirs {

  private final String prefix;
  private final Set<Path> made = ConcurrentHashMap.newKeySet();

  public TempDirs(String prefix) {
    this.prefix = prefix;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> made.forEach(TestDatabase::deleteTree), "delete-" + prefix));
  }

  /** A new, empty directory, deleted when the JVM ends. */
  public Path create() throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    made.add(dir);
    return dir;
  }
}
