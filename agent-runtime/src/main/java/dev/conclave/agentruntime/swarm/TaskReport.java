package dev.conclave.agentruntime.swarm;

import dev.conclave.agentruntime.swarm.TaskEnding.Decision;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the coordinator how a task ended, as {@link TaskEnding} decided: COMPLETE with the files the
 * calls wrote ({@link FileChanges}), the answer's summary and learnings ({@link Answers}) and the
 * quality metrics when there are any; or FAIL, with the backend's last answer as its details. Sent
 * with the spec's retries for transient errors; never fails (what could not be sent is logged, and
 * the coordinator's own rules take over: the task's deadline, the stale-agent rule).
 */
final class TaskReport {

  private static final Logger LOG = LoggerFactory.getLogger(TaskReport.class);
  private static final int ATTEMPTS = 5;

  private TaskReport() {
  }

  static Future<Void> send(Vertx vertx, SwarmClient client, String agentId, String taskId, Decision decision, String answer,
                           FileChanges files, JsonObject qualityMetrics) {
    if (!decision.report()) {
      LOG.info("task left to the coordinator task={}", taskId);
      return Future.succeededFuture();
    }
    Future<JsonObject> told;
    if (decision.completes()) {
      JsonObject result = new JsonObject().put("summary", Answers.summary(answer)).put("learnings", new JsonArray(Answers.learnings(answer)));
      files.lists().into(result);
      LOG.info("task complete task={} result={} quality={}", taskId, result.copy().put("summary", "…"), qualityMetrics);
      told = Retries.transientErrors(vertx, ATTEMPTS, () -> client.complete(agentId, taskId, result, qualityMetrics));
    } else {
      JsonObject failure = decision.failure().orElseThrow();
      if (answer != null && !answer.isBlank()) {
        failure.put("details", "the backend's last answer: " + Answers.summary(answer));
      }
      LOG.info("task fail task={} failure={}", taskId, failure);
      told = Retries.transientErrors(vertx, ATTEMPTS, () -> client.fail(agentId, taskId, failure));
    }
    return told.<Void>mapEmpty().recover(err -> {
      LOG.warn("the coordinator was not told how task {} ended: {}", taskId, err.getMessage());
      return Future.succeededFuture();
    });
  }
}
