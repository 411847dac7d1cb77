package dev.conclave.platform.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Writes secrets to files readable only by their owner (mode 0600), atomically. */
public final class PrivateFiles {

  private PrivateFiles() {
  }

  public static void write(Path file, String content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp;
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
      FileAttribute<Set<PosixFilePermission>> attr = PosixFilePermissions.asFileAttribute(ownerOnly);
      tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp", attr);
    } else {
      tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
    }
    try {
      Files.writeString(tmp, content, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
