package dev.conclave.e2e.docs;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;

/**
 * The repository as a reader's checkout, for the docs' examples to run in: a directory with a copy
 * of {@code ./conclave} and links to the modules, docs and scripts of the real tree, so what the
 * examples write ({@code data/}, token files, logs) lands in the copy, never in the tree. The links
 * keep {@code ./conclave} from rebuilding: it looks for sources newer than the jar only below its own
 * directory, and does not follow links there.
 */
final class RepoCopy {

  private final Path root;
  private final Path source;
  private final Path jar;
  private final FileTime jarTime;

  private RepoCopy(Path root, Path source, Path jar, FileTime jarTime) {
    this.root = root;
    this.source = source;
    this.jar = jar;
    this.jarTime = jarTime;
  }

  /** A fresh copy in {@code dir} of the tree the node jar was built in. */
  static RepoCopy create(Path dir) {
    try {
      Path jar = NodeProcess.jar();
      Path source = jar.getParent().getParent().getParent();
      TestDatabase.deleteTree(dir);   // Files.walk does not follow links: this removes the links, never what they point at
      Files.createDirectories(dir);
      Files.copy(source.resolve("conclave"), dir.resolve("conclave"));
      try (Stream<Path> entries = Files.list(source)) {
        for (Path entry : entries.toList()) {
          String name = entry.getFileName().toString();
          boolean module = Files.isDirectory(entry) && !name.startsWith(".") && !List.of("data", "target").contains(name);
          if (module || name.endsWith(".md")) {
            Files.createSymbolicLink(dir.resolve(name), entry);
          }
        }
      }
      return new RepoCopy(dir, source, jar, Files.getLastModifiedTime(jar));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path root() {
    return root;
  }

  /** The real tree: where the pages are read from. */
  Path source() {
    return source;
  }

  /** True when the node jar is the one the copy was made with: nothing rebuilt it meanwhile. */
  boolean jarUnchanged() {
    try {
      return Files.getLastModifiedTime(jar).equals(jarTime);
    } catch (IOException e) {
      return false;
    }
  }
}
