package dev.conclave.platform.retention;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

/**
 * The retention archive: what retention deletes, written first to {@code <dir>/<kind>-<yyyy-MM-dd>.ndjson.gz}
 * (the UTC day of the deletion), one JSON object (the deleted row) per line. Each batch is appended
 * as one more gzip member and forced to disk before its delete commits, so every deleted row is in
 * the archive; a batch whose delete then failed is in it too, which a restore (idempotent) tolerates.
 * Blocking: call it off the event loop.
 */
public final class RetentionArchive {

  private final Path dir;
  private final Clock clock;

  public RetentionArchive(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  public Path dir() {
    return dir;
  }

  /** Appends {@code lines} to today's file of {@code kind} as one gzip member and forces it to disk. */
  public void append(String kind, List<String> lines) throws IOException {
    if (lines.isEmpty()) {
      return;
    }
    Files.createDirectories(dir);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      for (String line : lines) {
        gz.write(line.getBytes(StandardCharsets.UTF_8));
        gz.write('\n');
      }
    }
    Path file = dir.resolve(kind + "-" + LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC) + ".ndjson.gz");
    boolean created = !Files.exists(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes.toByteArray());
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    if (created) {
      forceDirectory();
    }
  }

  /** Every archived line of {@code kind} in {@code dir}, oldest file first, in the order written. */
  public static void read(Path dir, String kind, Consumer<String> line) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("no archive directory " + dir);
    }
    List<Path> files = new ArrayList<>();
    try (Stream<Path> list = Files.list(dir)) {
      list.filter(p -> p.getFileName().toString().matches(java.util.regex.Pattern.quote(kind) + "-\\d{4}-\\d{2}-\\d{2}\\.ndjson\\.gz"))
        .sorted().forEach(files::add);
    }
    for (Path file : files) {
      readFile(file, line);
    }
  }

  private static void readFile(Path file, Consumer<String> line) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file));
         BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String l = reader.readLine(); l != null; l = reader.readLine()) {
        if (!l.isEmpty()) {
          line.accept(l);
        }
      }
    } catch (EOFException | ZipException e) {
      // a member cut short by a crash while it was written: its delete never committed, its rows are still in the database
    }
  }

  private void forceDirectory() {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // not every file system lets a directory be opened; the file itself is on disk
    }
  }
}
