package dev.conclave.swarm.files;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.protocol.ProtocolService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.CopyOptions;
import io.vertx.core.file.FileSystem;
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
    Future<Void> work = fs.readDir(requests.toString()).compose(paths -> {
      List<String> names = paths.stream().map(p -> Path.of(p).getFileName().toString())
        .filter(n -> REQUEST.matcher(n).matches() && !n.endsWith("-response.json")).sorted().toList();
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

  /** Claims a request file by renaming it; a file another node renamed first is simply gone. */
  private Future<Void> take(String name) {
    // the claim time is in the name: a rename keeps the agent's mtime, which may be old already
    String claimed = processing.resolve(name + "." + nodeId + "." + System.currentTimeMillis() + "-" + (++claims)).toString();
    return fs.move(requests.resolve(name).toString(), claimed, new CopyOptions().setAtomicMove(true))
      .transform(ar -> ar.succeeded() ? process(name, claimed) : Future.succeededFuture());
  }

  private Future<Void> process(String name, String claimed) {
    return fs.props(claimed)
      .compose(props -> props.size() > maxBytes
        ? Future.succeededFuture(FileAnswers.error(SwarmErrors.invalidField("body", "is larger than " + maxBytes + " bytes")))
        : fs.readFile(claimed).compose(answers::answer))
      .compose(response -> respond(name, response))
      .compose(v -> fs.delete(claimed))
      .recover(err -> {
        LOG.warn("swarm file transport: could not answer file={} error={}", name, err.getMessage());
        return Future.succeededFuture();
      });
  }

  private Future<Void> respond(String requestName, JsonObject response) {
    String base = requestName.substring(0, requestName.length() - ".json".length());
    String target = responses.resolve(base + "-response.json").toString();
    String temp = responses.resolve("." + base + "-response.json." + nodeId + ".tmp").toString();
    return fs.writeFile(temp, response.toBuffer())
      .compose(v -> fs.move(temp, target, new CopyOptions().setAtomicMove(true).setReplaceExisting(true)));
  }

  /** Requests claimed long ago by a node that never answered: answer outcome_unknown, once. */
  private Future<Void> answerOrphans() {
    return fs.readDir(processing.toString()).compose(paths -> {
      Future<Void> chain = Future.succeededFuture();
      for (String path : paths) {
        String file = Path.of(path).getFileName().toString();
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
