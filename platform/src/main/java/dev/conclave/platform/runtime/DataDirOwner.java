package dev.conclave.platform.runtime;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

/**
 * Who holds a data dir: one process at a time (a node, the {@code postgres} command, or a token
 * command that started the dir's embedded PostgreSQL itself). The hold is an OS file lock on
 * {@code $CONCLAVE_DATA_DIR/owner.lock}, so it ends with its process however that process ends
 * (SIGKILL included) and nothing has to clean it up; the file keeps, as JSON, who held it last and
 * how that holder reached its database. Every command that would start or stop the dir's embedded
 * PostgreSQL takes the hold first: a PostgreSQL found running on a dir nobody holds is an orphan,
 * one found on a held dir belongs to its holder and is never stopped.
 */
public final class DataDirOwner implements AutoCloseable {

  public static final String FILE = "owner.lock";

  /** Who holds, or last held, a data dir. */
  public record Holder(long pid, String kind, boolean embeddedDatabase, Instant since, String endpoints) {

    JsonObject json() {
      return new JsonObject().put("pid", pid).put("kind", kind).put("database", embeddedDatabase ? "embedded" : "external")
        .put("since", since.toString()).put("endpoints", endpoints);
    }

    static Optional<Holder> parse(String text) {
      try {
        JsonObject j = new JsonObject(text.trim());
        return Optional.of(new Holder(j.getLong("pid", -1L), j.getString("kind", "?"), !"external".equals(j.getString("database")),
          Instant.parse(j.getString("since", Instant.EPOCH.toString())), j.getString("endpoints", "")));
      } catch (DecodeException | ClassCastException | java.time.format.DateTimeParseException e) {
        return Optional.empty();
      }
    }

    /** One line for people: {@code node (pid 123, since …, grpc=… http=…)}. */
    public String describe() {
      return kind + " (pid " + pid + ", since " + since + (endpoints.isEmpty() ? "" : ", " + endpoints) + ")";
    }
  }

  /** The outcome of {@link #acquire}: the hold, or who has it. */
  public sealed interface Attempt permits Acquired, Held {
  }

  public record Acquired(DataDirOwner owner) implements Attempt {
  }

  public record Held(Holder holder) implements Attempt {
  }

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private Holder holder;

  private DataDirOwner(Path file, FileChannel channel, FileLock lock, Holder holder) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
    this.holder = holder;
  }

  /**
   * Takes the data dir for this process, as {@code kind} ({@code node}, {@code postgres}, {@code token}),
   * recording whether it runs the dir's embedded PostgreSQL; or says who holds it.
   */
  public static Attempt acquire(Path dataDir, String kind, boolean embeddedDatabase) {
    Path file = dataDir.resolve(FILE);
    try {
      Files.createDirectories(dataDir);
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this JVM holds it already (a test running a command beside a node)
      }
      if (lock == null) {
        channel.close();
        return new Held(lastHolder(dataDir).orElse(new Holder(ProcessHandle.current().pid(), "another process", true, Instant.EPOCH, "")));
      }
      DataDirOwner owner = new DataDirOwner(file, channel, lock,
        new Holder(ProcessHandle.current().pid(), kind, embeddedDatabase, Instant.now(), ""));
      owner.write();
      return new Acquired(owner);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take the data dir " + dataDir + ": " + e.getMessage(), e);
    }
  }

  /** The live holder of {@code dataDir}, if a process holds it now. */
  public static Optional<Holder> liveHolder(Path dataDir) {
    if (!Files.isRegularFile(dataDir.resolve(FILE))) {
      return Optional.empty();
    }
    try (FileChannel channel = FileChannel.open(dataDir.resolve(FILE), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock != null) {
        lock.release();
        return Optional.empty();
      }
      return Optional.of(lastHolder(dataDir).orElse(new Holder(-1, "another process", true, Instant.EPOCH, "")));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Who held {@code dataDir} last (or holds it now), as its file says; empty for a dir no process ever held. */
  public static Optional<Holder> lastHolder(Path dataDir) {
    try {
      Path file = dataDir.resolve(FILE);
      return Files.isRegularFile(file) ? Holder.parse(Files.readString(file)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Records where this holder can be reached ({@code grpc=… http=…}), for whoever finds the dir held. */
  public synchronized void endpoints(String endpoints) {
    holder = new Holder(holder.pid(), holder.kind(), holder.embeddedDatabase(), holder.since(), endpoints);
    try {
      write();
    } catch (IOException e) {
      // only a description for others; the hold itself stands
    }
  }

  private void write() throws IOException {
    byte[] bytes = (holder.json().encode() + "\n").getBytes(StandardCharsets.UTF_8);
    channel.truncate(0);
    channel.write(ByteBuffer.wrap(bytes), 0);
    channel.force(true);
  }

  public Holder holder() {
    return holder;
  }

  /** Gives the data dir up; the file stays, naming this holder as the last one. */
  @Override
  public synchronized void close() {
    try {
      if (lock.isValid()) {
        lock.release();
      }
      channel.close();
    } catch (IOException e) {
      // the process is ending or the hold was lost with the channel; either way it is given up
    }
  }

  Path file() {
    return file;
  }
}
