package dev.conclave.platform.db;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How PostgreSQL's programs run as this user. PostgreSQL refuses to run as root; as zonky does, a
 * root process runs them in a user namespace of their own ({@code unshare -U}), where they are not
 * root. Decided once per process from {@code /proc/self}'s owner, without starting a process.
 */
final class ServerUser {

  private static final List<String> PREFIX = decide();

  private ServerUser() {
  }

  /** The words to put before a PostgreSQL program on its command line: none, or {@code unshare -U}. */
  static List<String> prefix() {
    return PREFIX;
  }

  private static List<String> decide() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      boolean root = uid instanceof Integer id && id == 0;
      boolean unshare = Files.isExecutable(Path.of("/usr/bin/unshare")) || Files.isExecutable(Path.of("/bin/unshare"));
      return root && unshare ? List.of("unshare", "-U") : List.of();
    } catch (java.io.IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
      return List.of(); // no /proc (not Linux): zonky does not use a namespace there either
    }
  }
}
