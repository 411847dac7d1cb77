package dev.conclave.agentruntime.process;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Where an executable is found on this process's {@code PATH}. */
public final class Executables {

  private Executables() {
  }

  /** The first executable file named {@code name} in a directory of the {@code PATH}, if any. */
  public static Optional<Path> onPath(String name) {
    return onPath(name, System.getenv("PATH"));
  }

  /**
   * The program as a child process started in {@code workdir} finds it: a name with a slash is a
   * path from {@code workdir}, any other name is looked up in {@code path} (a {@code PATH} value).
   */
  public static Optional<Path> find(String program, Path workdir, String path) {
    if (program.contains("/")) {
      Path candidate = workdir.resolve(program);
      return Files.isExecutable(candidate) && !Files.isDirectory(candidate) ? Optional.of(candidate) : Optional.empty();
    }
    return onPath(program, path);
  }

  private static Optional<Path> onPath(String name, String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }
}
