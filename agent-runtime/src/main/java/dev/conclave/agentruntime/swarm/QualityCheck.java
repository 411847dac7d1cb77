package dev.conclave.agentruntime.swarm;

import dev.conclave.agentruntime.process.ChildProcess;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The quality metrics of a COMPLETE, from {@code --quality-command}: run with {@code sh -c} in the
 * working directory once the backend has answered; its exit code is {@code buildSuccess}, and
 * {@code testsRan}/{@code testsPassed} are read from its output ({@link TestCounts}; 0 and 0 when it
 * prints none of the forms known). Lint and type errors are not measured: 0. A command still running
 * at the task's deadline, or when the task is stopped, is killed and counts as a failed build.
 */
final class QualityCheck {

  private static final Logger LOG = LoggerFactory.getLogger(QualityCheck.class);
  /** Output kept for parsing: the last this many characters. */
  static final int KEEP = 256 * 1024;
  private static final Duration KILL_GRACE = Duration.ofSeconds(2);

  private QualityCheck() {
  }

  /**
   * Runs {@code command}; completes with the metrics, never fails.
   *
   * @param limit how long it may run
   * @param stop completes to end it early
   */
  static Future<JsonObject> run(Vertx vertx, String command, Path workdir, Duration limit, Future<String> stop) {
    StringBuilder out = new StringBuilder();
    ChildProcess child;
    try {
      // its standard error is read as well: some runners print their counts there
      child = ChildProcess.start(List.of("sh", "-c", "exec 2>&1\n" + command), workdir, Map.of(), false, line -> {
        synchronized (out) {
          out.append(line).append('\n');
          if (out.length() > 2 * KEEP) {
            out.delete(0, out.length() - KEEP);
          }
        }
        return Future.succeededFuture();
      });
    } catch (IOException e) {
      LOG.warn("quality command could not start: {}", e.getMessage());
      return Future.succeededFuture(metrics(false, java.util.Optional.empty()));
    }
    Promise<Integer> exit = Promise.promise();
    long timer = vertx.setTimer(Math.max(1, limit.toMillis()), t -> child.kill(KILL_GRACE));
    stop.onComplete(ar -> child.kill(KILL_GRACE));
    child.exit().onComplete(ar -> {
      vertx.cancelTimer(timer);
      exit.complete(ar.succeeded() && !child.killed() ? ar.result() : -1);
    });
    return exit.future().map(code -> {
      String text;
      synchronized (out) {
        text = out.toString();
      }
      LOG.info("quality command exited {}{}", code, child.killed() ? " (killed)" : "");
      return metrics(code == 0, TestCounts.parse(text));
    });
  }

  static JsonObject metrics(boolean buildSuccess, java.util.Optional<TestCounts> counts) {
    return new JsonObject().put("testsRan", counts.map(TestCounts::ran).orElse(0L))
      .put("testsPassed", counts.map(TestCounts::passed).orElse(0L)).put("lintErrors", 0).put("typeErrors", 0)
      .put("buildSuccess", buildSuccess);
  }
}
