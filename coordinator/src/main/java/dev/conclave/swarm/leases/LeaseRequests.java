package dev.conclave.swarm.leases;

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

  public static JsonObject release(JsonFields body) {
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("filePath", body.string("filePath", true, Limits.PATH))
      .json();
  }
}
