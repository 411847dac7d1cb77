package dev.conclave.swarm.agents;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes operator commands, checking what swarm.queue_command does not. (The protocol's REGISTER
 * and HEARTBEAT are checked by their SQL, swarm.check_register and swarm.check_heartbeat.)
 */
public final class AgentRequests {

  private AgentRequests() {
  }

  /**
   * An operator command: {type: SHUTDOWN, reason} | {type: RELEASE_TASK, taskId, reason} | {type: PING}.
   * Checks the taskId's format and the reason's length; swarm.queue_command checks the type, what
   * each type requires and the members' JSON types.
   */
  public static JsonObject command(JsonFields body) {
    Object type = body.raw("type");
    return JsonOut.object()
      .put("type", type)
      .put("taskId", "RELEASE_TASK".equals(type) ? body.idFormat("taskId") : null)
      .put("reason", "PING".equals(type) ? null : body.sized("reason", Limits.SHORT_TEXT))
      .json();
  }
}
