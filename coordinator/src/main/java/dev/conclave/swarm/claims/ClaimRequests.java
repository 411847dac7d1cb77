package dev.conclave.swarm.claims;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes CLAIM requests: {agentId, filter?: {skills, priorities, types, excludeIds, maxMinutes}}.
 * Checks sizes, id formats and maxMinutes' range; swarm._claim_criteria and swarm.claim_batch check JSON
 * types, required members and the priorities' and types' enumerations.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 */
public final class ClaimRequests {

  private ClaimRequests() {
  }

  public static JsonObject claim(JsonFields body) {
    JsonOut out = JsonOut.object().put("agentId", body.idFormat("agentId"));
    JsonFields filter = body.nested("filter");
    out.put("filter", filter == null ? body.raw("filter") : JsonOut.object()
      .put("skills", filter.sizedList("skills", Limits.SKILLS, Limits.SKILL))
      .put("priorities", filter.counted("priorities", 16))
      .put("types", filter.counted("types", 16))
      .put("excludeIds", filter.idList("excludeIds", Limits.EXCLUDE_IDS))
      .put("maxMinutes", filter.within("maxMinutes", 1, Limits.MINUTES)));
    return out.json();
  }
}
