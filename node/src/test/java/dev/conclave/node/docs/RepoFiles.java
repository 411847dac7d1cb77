package dev.conclave.node.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The repository's own files and directories, as paths relative to its root, for tests that check
 * what the docs cite. Build output, installed npm packages and git's files are left out, so a doc
 * cannot be kept true by something a build made.
 */
final class RepoFiles {

  private static final Set<String> SKIPPED = Set.of("target", "node_modules", ".git", "data");

  final Path root;
  /** Every file and directory, relative, with '/' separators; directories end with '/'. */
  final List<String> paths;

  private RepoFiles(Path root, List<String> paths) {
    this.root = root;
    this.paths = paths;
  }

  /** Tests run in a module's directory; the repository root is its parent. */
  static RepoFiles load() {
    Path root = Path.of("..").toAbsolutePath().normalize();
    try (Stream<Path> walk = Files.walk(root)) {
      List<String> paths = walk
          .filter(p -> !p.equals(root))
          .filter(p -> root.relativize(p).toString().chars().noneMatch(c -> c == 0))
          .filter(p -> { for (Path part : root.relativize(p)) if (SKIPPED.contains(part.toString())) return false; return true; })
          .map(p -> root.relativize(p).toString().replace('\\', '/') + (Files.isDirectory(p) ? "/" : ""))
          .collect(Collectors.toList());
      return new RepoFiles(root, paths);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String read(String relative) {
    try {
      return Files.readString(root.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean exists(String relative) {
    return Files.exists(root.resolve(relative));
  }

  /**
   * Whether a cited path exists. {@code …} in it stands for any number of directories
   * ({@code platform/…/bridge/}); a path without a top-level directory of its own
   * ({@code api/SessionSockets}) is looked for under {@code under} ("" for anywhere), as a file,
   * a directory or a Java class ({@code .java} left out).
   */
  boolean cited(String cited, String under) {
    String body = cited.endsWith("/") ? cited.substring(0, cited.length() - 1) : cited;
    StringBuilder regex = new StringBuilder();
    for (String part : body.split("…", -1)) {
      if (regex.length() > 0) regex.append("(?:/.+)?/");
      regex.append(Pattern.quote(part.replaceAll("^/|/$", "")));
    }
    String first = body.split("/")[0];
    boolean topLevel = exists(first) && !first.isEmpty() && !first.equals("…");
    String prefix = topLevel ? "" : (under.isEmpty() ? "(?:.+/)?" : Pattern.quote(under) + "/(?:.+/)?");
    Pattern pattern = Pattern.compile(prefix + regex + "(?:\\.java)?/?");
    return paths.stream().anyMatch(p -> pattern.matcher(p).matches());
  }

  /** The Java files whose path ends with the given package segments and class name. */
  List<String> javaFiles(String dottedName) {
    String suffix = "/" + dottedName.replace('.', '/') + ".java";
    return paths.stream().filter(p -> p.contains("/src/") && p.endsWith(suffix)).collect(Collectors.toList());
  }
}
