package dev.conclave.swarm.agents;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

/** Validates and normalizes REGISTER and HEARTBEAT requests and operator commands. */
public final class AgentRequests {

  private AgentRequests() {
  }

  /** REGISTER: {agent: {id, name, type, capabilities: {skills, maxTaskMinutes?, canRunTests?, ...}, machine?}}. */
  public static JsonObject register(JsonFields body) {
    JsonFields agent = body.object("agent", true);
    JsonFields caps = agent.object("capabilities", true);
    JsonFields machine = agent.object("machine", false);
    JsonOut capabilities = JsonOut.object()
      .put("skills", caps.strings("skills", true, Limits.SKILLS, Limits.SKILL))
      .put("maxTaskMinutes", caps.integer("maxTaskMinutes", false, 1, Limits.MINUTES))
      .put("canRunTests", caps.bool("canRunTests", false))
      .put("canRunBuild", caps.bool("canRunBuild", false))
      .put("canAccessBrowser", caps.bool("canAccessBrowser", false));
    JsonOut out = JsonOut.object()
      .put("id", agent.id("id", true))
      .put("name", agent.name("name", true))
      .put("type", agent.oneOf("type", true, Vocabulary.AGENT_TYPES))
      .put("capabilities", capabilities);
    if (machine != null) {
      out.put("machine", JsonOut.object()
        .put("id", machine.string("id", true, Limits.ID_LENGTH))
        .put("hostname", machine.string("hostname", true, Limits.NAME))
        .put("pid", machine.integer("pid", true, 0, Integer.MAX_VALUE)));
    }
    return JsonOut.object().put("agent", out).json();
  }

  /** HEARTBEAT: {agentId, status, currentTask?: {id, progress?, phase?}, metrics?: {memoryUsedMB, tasksCompletedSession}}. */
  public static JsonObject heartbeat(JsonFields body) {
    JsonOut out = JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("status", body.oneOf("status", true, Vocabulary.AGENT_STATUSES));
    JsonFields current = body.object("currentTask", false);
    if (current != null) {
      out.put("currentTask", JsonOut.object()
        .put("id", current.id("id", true))
        .put("progress", current.number("progress", false, 0, 100))
        .put("phase", current.oneOf("phase", false, Vocabulary.PHASES)));
    }
    JsonFields metrics = body.object("metrics", false);
    if (metrics != null) {
      out.put("metrics", JsonOut.object()
        .put("memoryUsedMB", metrics.number("memoryUsedMB", false, 0, 1e9))
        .put("tasksCompletedSession", metrics.integer("tasksCompletedSession", false, 0, Limits.COUNT)));
    }
    return out.json();
  }

  /** An operator command: {type: SHUTDOWN, reason} | {type: RELEASE_TASK, taskId, reason} | {type: PING}. */
  public static JsonObject command(JsonFields body) {
    String type = body.oneOf("type", true, Vocabulary.COMMAND_TYPES);
    JsonOut out = JsonOut.object().put("type", type);
    if (!type.equals("PING")) {
      if (type.equals("RELEASE_TASK")) {
        out.put("taskId", body.id("taskId", true));
      }
      out.put("reason", body.string("reason", true, Limits.SHORT_TEXT));
    }
    return out.json();
  }
}
