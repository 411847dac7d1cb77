package dev.conclave.agentruntime.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/** Installs a fake CLI from {@code src/test/resources/fake-cli} as an executable in a directory. */
public final class FakeCli {

  private FakeCli() {
  }

  public static Path install(String name, Path dir) {
    try (InputStream in = FakeCli.class.getResourceAsStream("/fake-cli/" + name)) {
      Path bin = dir.resolve("bin");
      Files.createDirectories(bin);
      Path exe = bin.resolve(name);
      Files.copy(in, exe, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
      return exe;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The arguments of each run, one line per run, as the fake logged them in the working directory. */
  public static List<String> invocations(Path workdir, String name) {
    return log(workdir, name + "-invocations.log");
  }

  /** The TRACEPARENT and TRACESTATE each run found in its environment, one line per run. */
  public static List<String> traceEnvironment(Path workdir, String name) {
    return log(workdir, name + "-trace.log");
  }

  /** How the fake's slow runs ended ({@code slow: SIGTERM} or {@code slow: finished}), one line per run. */
  public static List<String> signals(Path workdir, String name) {
    return log(workdir, name + "-signals.log");
  }

  private static List<String> log(Path workdir, String file) {
    try {
      Path log = workdir.resolve(file);
      return Files.exists(log) ? Files.readAllLines(log) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
