package dev.conclave.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The open-file limit that this JVM has and its child processes (nodes) inherit. A benchmark with
 * tens of thousands of connections checks it first, so that it stops with the fix in its message
 * instead of failing on the connection after the limit ({@code Too many open files}).
 */
public final class FileLimit {

  private FileLimit() {
  }

  /** This process's soft limit on open files, from {@code /proc/self/limits}; empty when unlimited or unknown. */
  public static OptionalLong current() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
          return soft.equals("unlimited") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(soft));
        }
      }
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Throws, saying how to raise it, when the limit is below {@code needed}. */
  public static void require(long needed, String what) {
    OptionalLong limit = current();
    if (limit.isPresent() && limit.getAsLong() < needed) {
      throw new IllegalStateException(what + " need about " + needed + " open files, and the limit is " + limit.getAsLong()
        + ": run under 'prlimit --nofile=" + needed + ":" + needed + " -- mvn …' (or 'ulimit -n " + needed + "' as root)");
    }
  }
}
