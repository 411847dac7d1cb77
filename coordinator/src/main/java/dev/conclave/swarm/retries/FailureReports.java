package dev.conclave.swarm.retries;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

/**
 * Validates FAIL requests: {agentId, taskId, failure: {type, message, details?, recoverable,
 * suggestedAction?}}. What a failure leads to (retry with backoff, previousAgents, failed) is decided
 * in the database (swarm._fail_task), the same for agents' FAILs and for crashed agents.
 */
public final class FailureReports {

  private FailureReports() {
  }

  public static JsonObject fail(JsonFields body) {
    JsonFields failure = body.object("failure", true);
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("taskId", body.id("taskId", true))
      .put("failure", JsonOut.object()
        .put("type", failure.oneOf("type", true, Vocabulary.FAILURE_TYPES))
        .put("message", failure.string("message", true, Limits.SHORT_TEXT * 2))
        .put("details", failure.string("details", false, Limits.DETAILS))
        .put("recoverable", failure.bool("recoverable", true))
        .put("suggestedAction", failure.string("suggestedAction", false, Limits.SHORT_TEXT)))
      .json();
  }
}
