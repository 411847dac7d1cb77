package dev.conclave.swarm.conversations;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The message that hands a claimed task to its agent: the task (title, description, type, priority,
 * skills, files, branch), what each dependency produced (its result's summary and files), the
 * learnings of related tasks the claim offered, the last failure when this is a retry, and how to
 * answer. It is what the agent's backend gets as its prompt and what the console shows as the
 * conversation's first message, so it is plain Markdown. Long parts are cut so the whole stays
 * far below a gateway message's limit: {@value #MAX_CHARS} characters at most.
 */
public final class TaskPrompt {

  static final int MAX_CHARS = 60_000;
  private static final int SUMMARY_CHARS = 2_000;
  private static final int FILES_SHOWN = 20;
  private static final int DEPENDENCIES_SHOWN = 30;
  private static final int LEARNING_CHARS = 1_000;

  /** The line the agent program looks for at the end of an answer. */
  public static final String LEARNINGS_HEADING = "Learnings:";

  private TaskPrompt() {
  }

  /**
   * @param task the task as {@code swarm.task_json} gives it
   * @param dependencies {@code [{id, title, status, completedBy?, result?}]} in the task's order
   * @param learnings {@code [{taskId, agentId, learning}]}, best match first
   */
  public static String of(JsonObject task, JsonArray dependencies, JsonArray learnings) {
    StringBuilder p = new StringBuilder();
    p.append("You are working on a task from the swarm's backlog (task ").append(task.getString("id")).append(").\n\n");
    p.append("# ").append(task.getString("title", "")).append("\n\n");
    p.append("- type: ").append(task.getString("type", "code")).append(", priority: ").append(task.getString("priority", "medium")).append('\n');
    List<String> skills = strings(task.getJsonArray("requiredSkills"));
    if (!skills.isEmpty()) {
      p.append("- required skills: ").append(String.join(", ", skills)).append('\n');
    }
    List<String> files = strings(task.getJsonArray("files"));
    if (!files.isEmpty()) {
      p.append("- files likely to change: ").append(list(files)).append('\n');
    }
    if (task.getString("branch") != null) {
      p.append("- branch: ").append(task.getString("branch")).append('\n');
    }
    if (task.getInteger("estimatedMinutes") != null) {
      p.append("- estimated: ").append(task.getInteger("estimatedMinutes")).append(" minutes\n");
    }
    String description = task.getString("description", "");
    if (!description.isBlank()) {
      p.append("\n## Description\n\n").append(description.strip()).append('\n');
    }
    if (!dependencies.isEmpty()) {
      p.append("\n## What the tasks it depends on produced\n");
      int shown = 0;
      for (Object o : dependencies) {
        if (shown++ == DEPENDENCIES_SHOWN) {
          p.append("\n(and ").append(dependencies.size() - DEPENDENCIES_SHOWN).append(" more)\n");
          break;
        }
        dependency(p, (JsonObject) o);
      }
    }
    if (!learnings.isEmpty()) {
      p.append("\n## Learnings from related tasks\n\n");
      for (Object o : learnings) {
        JsonObject l = (JsonObject) o;
        p.append("- ").append(cut(l.getString("learning", ""), LEARNING_CHARS).replace('\n', ' '))
          .append(" (task ").append(l.getString("taskId")).append(", agent ").append(l.getString("agentId")).append(")\n");
      }
    }
    int retries = task.getInteger("retryCount", 0);
    if (retries > 0) {
      p.append("\n## Earlier attempts\n\nThis task failed ").append(retries).append(retries == 1 ? " time" : " times")
        .append(" before");
      if (task.getString("lastError") != null) {
        p.append("; the last error: ").append(cut(task.getString("lastError"), SUMMARY_CHARS));
      }
      p.append(".\n");
    }
    p.append("\n## When you are done\n\nAnswer with a short summary of what you did. If you learned something that would help")
      .append(" with similar tasks, end your answer with a line `").append(LEARNINGS_HEADING)
      .append("` followed by one line per learning, each starting with `- `.\n");
    return cut(p.toString(), MAX_CHARS);
  }

  private static void dependency(StringBuilder p, JsonObject d) {
    p.append("\n### ").append(d.getString("id")).append(": ").append(d.getString("title", "")).append('\n');
    JsonObject result = d.getJsonObject("result");
    if (!"completed".equals(d.getString("status")) || result == null) {
      p.append("\n(status: ").append(d.getString("status")).append("; no result)\n");
      return;
    }
    p.append('\n');
    if (d.getString("completedBy") != null) {
      p.append("Completed by ").append(d.getString("completedBy")).append(". ");
    }
    p.append(cut(result.getString("summary", "").strip(), SUMMARY_CHARS)).append('\n');
    for (String kind : List.of("Created", "Modified", "Deleted")) {
      List<String> files = strings(result.getJsonArray("files" + kind));
      if (!files.isEmpty()) {
        p.append("- ").append(kind.toLowerCase(java.util.Locale.ROOT)).append(": ").append(list(files)).append('\n');
      }
    }
  }

  private static String list(List<String> files) {
    String shown = String.join(", ", files.subList(0, Math.min(files.size(), FILES_SHOWN)));
    return files.size() > FILES_SHOWN ? shown + " (and " + (files.size() - FILES_SHOWN) + " more)" : shown;
  }

  private static List<String> strings(JsonArray a) {
    return a == null ? List.of() : a.stream().map(String::valueOf).toList();
  }

  private static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
