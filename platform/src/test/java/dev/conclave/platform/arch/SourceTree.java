package dev.conclave.platform.arch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main Java sources of every module, read from the repository root ({@code ..} from a module's
 * directory, where Maven runs the tests), for tests that check a rule across all modules.
 */
final class SourceTree {

  /** One source file of one module. */
  record Source(String module, Path path, String text) {

    /** The file's lines without block and line comments, so a rule is not broken by a comment. */
    List<String> codeLines() {
      String code = text.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", "");
      return code.lines().toList();
    }

    /** The names after {@code import} and {@code import static}. */
    List<String> imports() {
      return codeLines().stream()
        .map(String::trim)
        .filter(l -> l.startsWith("import "))
        .map(l -> l.substring("import ".length()).replace("static ", "").replace(";", "").trim())
        .toList();
    }

    String relative() {
      return ROOT.relativize(path).toString();
    }
  }

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private SourceTree() {
  }

  /** Every module directory of the reactor that has main sources. */
  static List<String> modules() {
    try (Stream<Path> dirs = Files.list(ROOT)) {
      return dirs.filter(d -> Files.isDirectory(d.resolve("src/main/java")))
        .map(d -> d.getFileName().toString())
        .sorted()
        .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every {@code .java} file under {@code module/src/main/java}. */
  static List<Source> mainSources(String module) {
    Path dir = ROOT.resolve(module).resolve("src/main/java");
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().map(f -> {
        try {
          return new Source(module, f, Files.readString(f));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every main source file of every module. */
  static List<Source> allMainSources() {
    return modules().stream().flatMap(m -> mainSources(m).stream()).toList();
  }
}
