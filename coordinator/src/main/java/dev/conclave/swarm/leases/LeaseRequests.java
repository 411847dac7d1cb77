package dev.conclave.swarm.leases;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.errors.SwarmProblem;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes ACQUIRE_LEASE ({agentId, taskId, filePath, durationMs}) and RELEASE_LEASE ({agentId,
 * filePath}). Checks sizes and id formats; swarm.op_acquire_lease and op_release_lease check JSON
 * types, required members and that durationMs is a positive whole number. Durations above one hour
 * are accepted and capped by the database (swarm.max_lease()).
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 * An ACQUIRE_LEASE's problems go to the database with the request ({@link #acquireDeferring}) only
 * when its filePath is usable: which path it names is the first thing the database reads.
 */
public final class LeaseRequests {

  private LeaseRequests() {
  }

  public static JsonObject acquire(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("taskId", body.idFormat("taskId"))
      .put("filePath", body.sized("filePath", Limits.PATH))
      .put("durationMs", body.raw("durationMs"))
      .json();
  }

  /**
   * An ACQUIRE_LEASE that failed validation with {@code invalid}: when its {@code filePath} is usable,
   * the request goes on with the problem in {@code deferredError}, for swarm.op_acquire_lease to answer
   * after it has refused a file another agent holds (seed 001's first rule); otherwise the problem.
   */
  public static JsonObject acquireDeferring(JsonFields body, SwarmProblem invalid) {
    if (!(body.raw("filePath") instanceof String path) || path.isBlank() || path.length() > Limits.PATH) {
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
      .put("agentId", body.idFormat("agentId"))
      .put("filePath", body.sized("filePath", Limits.PATH))
      .json();
  }
}
