package dev.conclave.swarm.claims;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

/** Validates and normalizes CLAIM requests: {agentId, filter?: {skills, priorities, types, excludeIds, maxMinutes}}. */
public final class ClaimRequests {

  private ClaimRequests() {
  }

  public static JsonObject claim(JsonFields body) {
    JsonOut out = JsonOut.object().put("agentId", body.id("agentId", true));
    JsonFields filter = body.object("filter", false);
    if (filter != null) {
      out.put("filter", JsonOut.object()
        .put("skills", filter.strings("skills", false, Limits.SKILLS, Limits.SKILL))
        .put("priorities", filter.oneOfEach("priorities", 16, Vocabulary.PRIORITIES))
        .put("types", filter.oneOfEach("types", 16, Vocabulary.TASK_TYPES))
        .put("excludeIds", filter.ids("excludeIds", false, Limits.EXCLUDE_IDS))
        .put("maxMinutes", filter.integer("maxMinutes", false, 1, Limits.MINUTES)));
    }
    return out.json();
  }
}
