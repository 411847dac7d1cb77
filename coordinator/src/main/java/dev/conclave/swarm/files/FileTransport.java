package dev.conclave.swarm.files;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.protocol.ProtocolService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.CopyOptions;
import io.vertx.core.file.FileSystem;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The protocol's file-based transport. Agents write {@code requests/<name>.json}; a coordinator node
 * takes the file by renaming it into {@code processing/} (an atomic rename, so of several nodes sharing
 * the directory exactly one gets it), answers it through the same protocol implementation as HTTP,
 * and writes {@code responses/<name>-response.json} atomically (a hidden temp file renamed into place).
 * Files are handled one at a time in name order. A file claimed by a node that then died is answered
 * with {@code outcome_unknown} after five minutes. All file access uses the non-blocking file system.
 */
public final class FileTransport {

  private static final Logger LOG = LoggerFactory.getLogger(FileTransport.class);
  private static final Pattern REQUEST = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\.json");
  private static final Duration ORPHAN_AFTER = Duration.ofMinutes(5);
  private static final Duration ORPHAN_CHECK_EVERY = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final FileSystem fs;
  private final Path requests;
  private final Path responses;
  private final Path processing;
  private final Duration poll;
  private final int maxBytes;
  private final FileAnswers answers;
  private final String nodeId;
  private long timer = -1;
  private boolean polling;
  private long claims;
  private long lastOrphanCheck;

  public FileTransport(Vertx vertx, Path dir, Duration poll, int maxBytes, ProtocolService service, String nodeId) {
    this.vertx = vertx;
    this.fs = vertx.fileSystem();
    this.requests = dir.resolve("requests");
    this.responses = dir.resolve("responses");
    this.processing = dir.resolve("processing");
    this.poll = poll;
    this.maxBytes = maxBytes;
    this.answers = new FileAnswers(service);
    this.nodeId = nodeId;
  }

  public Future<Void> start() {
    return fs.mkdirs(requests.toString())
      .compose(v -> fs.mkdirs(responses.toString()))
      .compose(v -> fs.mkdirs(processing.toString()))
      .onSuccess(v -> {
        timer = vertx.setPeriodic(poll.toMillis(), id -> poll());
        LOG.info("swarm file transport: watching dir={}", requests.getParent());
      });
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  private void poll() {
    if (polling) {
      return;
    }
    polling = true;
    Future<Void> work = names(requests).compose(all -> {
      List<String> names = all.stream().filter(n -> REQUEST.matcher(n).matches() && !n.endsWith("-response.json")).sorted().toList();
      Future<Void> chain = Future.succeededFuture();
      for (String name : names) {
        chain = chain.compose(v -> take(name));
      }
      return chain;
    });
    long now = System.currentTimeMillis();
    if (now - lastOrphanCheck >= ORPHAN_CHECK_EVERY.toMillis()) {
      lastOrphanCheck = now;
      work = work.compose(v -> answerOrphans());
    }
    work.onComplete(ar -> {
      polling = false;
      if (ar.failed()) {
        LOG.warn("swarm file transport: poll failed error={}", ar.cause().getMessage());
      }
    });
  }

  /**
   * The names in a directory as they are, links included. (Vert.x's readDir answers canonical paths,
   * so a link showed up under its target's name and was never claimed; hence java.nio, off the loop.)
   */
  private Future<List<String>> names(Path dir) {
    return vertx.executeBlocking(() -> {
      List<String> out = new java.util.ArrayList<>();
      try (java.nio.file.DirectoryStream<Path> entries = java.nio.file.Files.newDirectoryStream(dir)) {
        entries.forEach(p -> out.add(p.getFileName().toString()));
      }
      return out;
    }, false);
  }

  /** Claims a request file by renaming it; a file another node renamed first is simply gone. */
  private Future<Void> take(String name) {
    // the claim time is in the name: a rename keeps the agent's mtime, which may be old already
    String claimed = processing.resolve(name + "." + nodeId + "." + System.currentTimeMillis() + "-" + (++claims)).toString();
    return fs.move(requests.resolve(name).toString(), claimed, new CopyOptions().setAtomicMove(true))
      .transform(ar -> {
        if (ar.succeeded()) {
          return process(name, claimed);
        }
        if (!(ar.cause() instanceof io.vertx.core.file.FileSystemException fse && fse.getCause() instanceof java.nio.file.NoSuchFileException)) {
          LOG.warn("swarm file transport: could not claim file={} error={}", name, ar.cause().toString());
        }
        return Future.succeededFuture();
      });
  }

  /**
   * Answers a claimed file. Only a regular file is read (never through a link, and never a FIFO, which
   * would block the reader for good), and only up to the size limit.
   */
  private Future<Void> process(String name, String claimed) {
    return fs.lprops(claimed)
      .compose(props -> {
        if (!props.isRegularFile()) {
          return Future.succeededFuture(FileAnswers.error(SwarmErrors.invalidField("file",
            "is not a regular file (a link, a FIFO, a directory or a device); write the request as a plain file")));
        }
        return props.size() > maxBytes
          ? Future.succeededFuture(FileAnswers.error(SwarmErrors.invalidField("body", "is larger than " + maxBytes + " bytes")))
          : fs.readFile(claimed).compose(answers::answer);
      })
      .compose(response -> respond(name, response))
      .compose(v -> fs.deleteRecursive(claimed))
      .recover(err -> {
        LOG.warn("swarm file transport: could not answer file={} error={}", name, err.getMessage());
        return Future.succeededFuture();
      });
  }

  /**
   * Writes a response atomically: a new file under a random name (created exclusively, so nothing
   * planted there, a link included, is ever written through), then renamed over the response's name
   * (a rename replaces a link planted there; it never writes through it).
   */
  private Future<Void> respond(String requestName, JsonObject response) {
    String base = requestName.substring(0, requestName.length() - ".json".length());
    String target = responses.resolve(base + "-response.json").toString();
    String temp = responses.resolve("." + base + "-response." + java.util.UUID.randomUUID() + ".tmp").toString();
    return fs.open(temp, new OpenOptions().setCreateNew(true).setWrite(true))
      .compose(file -> file.end(response.toBuffer()))
      .compose(v -> fs.move(temp, target, new CopyOptions().setAtomicMove(true).setReplaceExisting(true)))
      .onFailure(err -> fs.delete(temp));
  }

  /** Requests claimed long ago by a node that never answered: answer outcome_unknown, once. */
  private Future<Void> answerOrphans() {
    return names(processing).compose(files -> {
      Future<Void> chain = Future.succeededFuture();
      for (String file : files) {
        String path = processing.resolve(file).toString();
        int end = file.indexOf(".json.");
        long claimedAt = claimTime(file);
        if (end < 0 || file.contains(".orphan.") || System.currentTimeMillis() - claimedAt < ORPHAN_AFTER.toMillis()) {
          continue;
        }
        String requestName = file.substring(0, end + ".json".length());
        String orphan = processing.resolve(requestName + ".orphan." + nodeId + "." + (++claims)).toString();
        chain = chain.compose(v -> fs.move(path, orphan, new CopyOptions().setAtomicMove(true)).transform(moved -> moved.failed()
          ? Future.succeededFuture()
          : respond(requestName, FileAnswers.error(SwarmErrors.outcomeUnknown())).compose(x -> fs.delete(orphan))));
      }
      return chain;
    });
  }

  /** The claim time in a processing file's name ({@code <request>.json.<node>.<millis>-<n>}), or now. */
  private static long claimTime(String file) {
    String last = file.substring(file.lastIndexOf('.') + 1);
    int dash = last.indexOf('-');
    try {
      return dash > 0 ? Long.parseLong(last.substring(0, dash)) : System.currentTimeMillis();
    } catch (NumberFormatException e) {
      return System.currentTimeMillis();
    }
  }
}
