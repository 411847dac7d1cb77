package dev.conclave.swarm.retries;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes FAIL requests: {agentId, taskId, failure: {type, message, details?, recoverable,
 * suggestedAction?}}. Checks sizes and id formats; swarm.op_fail checks JSON types, required members
 * and the type's enumeration. What a failure leads to (retry with backoff, previousAgents, failed) is
 * decided in the database (swarm._fail_task), the same for agents' FAILs and for crashed agents.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 */
public final class FailureReports {

  private FailureReports() {
  }

  public static JsonObject fail(JsonFields body) {
    JsonFields failure = body.nested("failure");
    return JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("taskId", body.idFormat("taskId"))
      .put("failure", failure == null ? body.raw("failure") : JsonOut.object()
        .put("type", failure.raw("type"))
        .put("message", failure.sized("message", Limits.SHORT_TEXT * 2))
        .put("details", failure.sized("details", Limits.DETAILS))
        .put("recoverable", failure.raw("recoverable"))
        .put("suggestedAction", failure.sized("suggestedAction", Limits.SHORT_TEXT)))
      .json();
  }
}
