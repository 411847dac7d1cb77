package dev.conclave.swarm.agents;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes REGISTER and HEARTBEAT requests and operator commands, checking what the database functions do not.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 * A display name follows platform's {@code TextRules}, the rule every other name in Conclave follows.
 */
public final class AgentRequests {

  private AgentRequests() {
  }

  /**
   * REGISTER: {agent: {id, name, type, capabilities: {skills, maxTaskMinutes?, canRunTests?, ...}, machine?}}.
   * Checks sizes, the id's format, the name's characters and maxTaskMinutes' range; swarm.op_register
   * checks JSON types, required members and the type's enumeration.
   */
  public static JsonObject register(JsonFields body) {
    JsonFields agent = body.nested("agent");
    if (agent == null) {
      return JsonOut.object().put("agent", body.raw("agent")).json();
    }
    JsonFields caps = agent.nested("capabilities");
    JsonOut out = JsonOut.object()
      .put("id", agent.idFormat("id"))
      .put("name", agent.displayName("name"))
      .put("type", agent.raw("type"))
      .put("capabilities", caps == null ? agent.raw("capabilities") : JsonOut.object()
        .put("skills", caps.sizedList("skills", Limits.SKILLS, Limits.SKILL))
        .put("maxTaskMinutes", caps.within("maxTaskMinutes", 1, Limits.MINUTES))
        .put("canRunTests", caps.raw("canRunTests"))
        .put("canRunBuild", caps.raw("canRunBuild"))
        .put("canAccessBrowser", caps.raw("canAccessBrowser")));
    JsonFields machine = agent.nested("machine");
    out.put("machine", machine == null ? agent.raw("machine") : JsonOut.object()
      .put("id", machine.sized("id", Limits.ID_LENGTH))
      .put("hostname", machine.sized("hostname", Limits.NAME))
      .put("pid", machine.within("pid", 0, Integer.MAX_VALUE)));
    return JsonOut.object().put("agent", out).json();
  }

  /**
   * HEARTBEAT: {agentId, status, currentTask?: {id, progress?, phase?}, metrics?: {memoryUsedMB, tasksCompletedSession}}.
   * Checks id formats and ranges; swarm.op_heartbeat checks JSON types, required members and enumerations.
   */
  public static JsonObject heartbeat(JsonFields body) {
    JsonOut out = JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("status", body.raw("status"));
    JsonFields current = body.nested("currentTask");
    out.put("currentTask", current == null ? body.raw("currentTask") : JsonOut.object()
      .put("id", current.idFormat("id"))
      .put("progress", current.within("progress", 0, 100))
      .put("phase", current.raw("phase")));
    JsonFields metrics = body.nested("metrics");
    out.put("metrics", metrics == null ? body.raw("metrics") : JsonOut.object()
      .put("memoryUsedMB", metrics.within("memoryUsedMB", 0, 1_000_000_000L))
      .put("tasksCompletedSession", metrics.within("tasksCompletedSession", 0, Limits.COUNT)));
    return out.json();
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
