package dev.conclave.swarm.tasks;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Validates tasks to create: one task object, or {@code {"tasks": [...]}} with up to 1000. A task is
 * {id?, title, description?, priority? (medium), type? (code), requiredSkills?, dependencies?, files?,
 * estimatedMinutes?, branch?, maxRetries?, uniqueKey?, uniqueWindowMinutes?}. Whether ids are free and dependencies exist is checked by
 * swarm.create_tasks in the same transaction that creates them.
 */
public final class TaskDrafts {

  private TaskDrafts() {
  }

  /** True when the body carries several tasks ({"tasks": [...]}). */
  public static boolean isBatch(JsonObject body) {
    return body.containsKey("tasks");
  }

  public static JsonArray of(JsonObject body) {
    if (!isBatch(body)) {
      return new JsonArray().add(task(JsonFields.of(body)));
    }
    Object tasks = body.getValue("tasks");
    if (!(tasks instanceof JsonArray array) || array.isEmpty()) {
      throw SwarmErrors.invalidField("tasks", "must be a non-empty array of tasks");
    }
    if (array.size() > Limits.TASKS_PER_REQUEST) {
      throw SwarmErrors.invalidField("tasks", "must have at most " + Limits.TASKS_PER_REQUEST + " tasks, got " + array.size());
    }
    JsonArray out = new JsonArray();
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject task)) {
        throw SwarmErrors.invalidField("tasks[" + i + "]", "must be an object");
      }
      out.add(task(JsonFields.of(task, "tasks[" + i + "].")));
    }
    return out;
  }

  /** One task (a schedule's template), its members named {@code prefix + member} in problems. */
  public static JsonObject one(JsonObject task, String prefix) {
    return task(JsonFields.of(task, prefix));
  }

  private static JsonObject task(JsonFields task) {
    return JsonOut.object()
      .put("id", task.id("id", false))
      .put("title", task.string("title", true, Limits.TITLE))
      .put("description", task.string("description", false, Limits.TEXT))
      .put("priority", task.oneOf("priority", false, Vocabulary.PRIORITIES))
      .put("type", task.oneOf("type", false, Vocabulary.TASK_TYPES))
      .put("requiredSkills", task.strings("requiredSkills", false, Limits.SKILLS, Limits.SKILL))
      .put("dependencies", task.ids("dependencies", false, Limits.DEPENDENCIES))
      .put("files", task.strings("files", false, Limits.PATHS, Limits.PATH))
      .put("estimatedMinutes", task.integer("estimatedMinutes", false, 1, Limits.MINUTES))
      .put("branch", task.string("branch", false, Limits.BRANCH))
      .put("maxRetries", task.integer("maxRetries", false, 0, 100))
      .put("uniqueKey", uniqueKey(task))
      .put("uniqueWindowMinutes", task.integer("uniqueWindowMinutes", false, 0, Limits.UNIQUE_WINDOW_MINUTES))
      .json();
  }

  private static String uniqueKey(JsonFields task) {
    String key = task.string("uniqueKey", false, Limits.UNIQUE_KEY);
    if (key != null && key.isEmpty()) {
      throw SwarmErrors.invalidField(task.path("uniqueKey"), "must be 1-" + Limits.UNIQUE_KEY + " characters");
    }
    return key;
  }
}
