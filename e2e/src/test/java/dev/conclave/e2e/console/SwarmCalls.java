package dev.conclave.e2e.console;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/** The swarm's HTTP protocol (docs/swarm.md) as an operator and one swarm agent use it. */
final class SwarmCalls {

  private final ConsoleApi api;
  private final String agentId;

  /** Registers the swarm agent {@code agentId} (skill {@code docs}). */
  SwarmCalls(ConsoleApi api, String agentId) {
    this.api = api;
    this.agentId = agentId;
    api.post("/api/v1/agents/register", v1("REGISTER").put("agent", new JsonObject().put("id", agentId).put("name", "Writer")
      .put("type", "custom").put("capabilities", new JsonObject().put("skills", new JsonArray().add("docs")))), 200);
  }

  /** Creates a task (operator). */
  static JsonObject task(String id, String title, String priority, String type) {
    return new JsonObject().put("id", id).put("title", title).put("priority", priority).put("type", type);
  }

  /** Creates tasks, all or nothing (operator). */
  void create(JsonObject... tasks) {
    api.post("/api/v1/tasks", new JsonObject().put("tasks", new JsonArray(List.of((Object[]) tasks))), 201);
  }

  /** Claims the next task; returns its id. */
  String claim() {
    JsonObject claimed = api.post("/api/v1/tasks/claim", v1("CLAIM").put("agentId", agentId), 200);
    if (!claimed.getBoolean("success", false)) {
      throw new AssertionError("the claim found no task: " + claimed.encode());
    }
    return claimed.getJsonObject("task").getString("id");
  }

  void progress(String taskId, int percent, String description) {
    api.post("/api/v1/tasks/" + taskId + "/progress", v1("PROGRESS").put("agentId", agentId).put("progress",
      new JsonObject().put("phase", "testing").put("percentComplete", percent).put("description", description)), 200);
  }

  void complete(String taskId, String summary) {
    api.post("/api/v1/tasks/" + taskId + "/complete", v1("COMPLETE").put("agentId", agentId).put("result", new JsonObject()
      .put("filesCreated", new JsonArray()).put("filesModified", new JsonArray().add("docs/RELEASE.md"))
      .put("filesDeleted", new JsonArray()).put("summary", summary)), 200);
  }

  private static JsonObject v1(String operation) {
    return new JsonObject().put("protocolVersion", "1.0").put("operation", operation);
  }
}
