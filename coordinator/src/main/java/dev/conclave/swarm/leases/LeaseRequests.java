package dev.conclave.swarm.leases;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.errors.SwarmProblem;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Validates ACQUIRE_LEASE ({agentId, taskId, filePath, durationMs}) and RELEASE_LEASE ({agentId,
 * filePath}). Durations above one hour are accepted and capped by the database (swarm.max_lease()).
 */
public final class LeaseRequests {

  private LeaseRequests() {
  }

  public static JsonObject acquire(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("taskId", body.id("taskId", true))
      .put("filePath", body.string("filePath", true, Limits.PATH))
      .put("durationMs", body.integer("durationMs", true, 1, 9_007_199_254_740_991L))
      .json();
  }

  /**
   * An ACQUIRE_LEASE that failed validation with {@code invalid}: when its {@code filePath} is usable,
   * the request goes on with the problem in {@code deferredError}, for swarm.op_acquire_lease to answer
   * after it has refused a file another agent holds (seed 001's first rule); otherwise the problem.
   */
  public static JsonObject acquireDeferring(JsonFields body, SwarmProblem invalid) {
    String path;
    try {
      path = body.string("filePath", true, Limits.PATH);
    } catch (SwarmProblem unusablePath) {
      throw invalid;
    }
    Object agentId = body.raw("agentId");
    return new JsonObject()
      .put("agentId", agentId instanceof String s && Limits.ID.matcher(s).matches() ? s : null)
      .put("filePath", path)
      .put("deferredError", SwarmErrors.toDatabase(invalid));
  }

  public static JsonObject release(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("filePath", body.string("filePath", true, Limits.PATH))
      .json();
  }
}
