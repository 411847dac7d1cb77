package dev.conclave.cli.commands;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Option;

import java.util.Arrays;
import java.util.List;

/**
 * A task's fields as flags, shared by {@code tasks create} and {@code schedules create} (its task
 * template): each flag given becomes the member of the same name in the API's task object
 * (docs/swarm.md, "Task management"); the server checks them.
 */
public final class TaskFields {

  @Option(names = "--title", description = "The task's title (required unless --from-file).")
  String title;

  @Option(names = "--description", description = "What to do.")
  String description;

  @Option(names = "--priority", description = "critical, high, medium (the default) or low.")
  String priority;

  @Option(names = "--type", description = "code (the default), test, browser_test, documentation, review or custom.")
  String type;

  @Option(names = "--skill", paramLabel = "SKILL", description = "A required skill (repeat, or separate with commas).")
  List<String> skills;

  @Option(names = "--file", paramLabel = "PATH", description = "A file the task touches (repeat).")
  List<String> files;

  @Option(names = "--estimated-minutes", description = "How long it should take.")
  Integer estimatedMinutes;

  @Option(names = "--branch", description = "The branch to work on.")
  String branch;

  @Option(names = "--max-retries", description = "Retries it gets (default: the node's CONCLAVE_SWARM_MAX_RETRIES).")
  Integer maxRetries;

  /** Whether any field was given. */
  boolean any() {
    return !json().isEmpty();
  }

  /** The fields given, as the API's task object. */
  JsonObject json() {
    JsonObject task = new JsonObject();
    put(task, "title", title);
    put(task, "description", description);
    put(task, "priority", priority);
    put(task, "type", type);
    put(task, "requiredSkills", list(skills));
    put(task, "files", list(files));
    put(task, "estimatedMinutes", estimatedMinutes);
    put(task, "branch", branch);
    put(task, "maxRetries", maxRetries);
    return task;
  }

  static void put(JsonObject into, String member, Object value) {
    if (value != null) {
      into.put(member, value);
    }
  }

  /** Repeated and comma-separated values as one array; none as nothing. */
  static JsonArray list(List<String> values) {
    if (values == null) {
      return null;
    }
    JsonArray out = new JsonArray();
    values.stream().flatMap(v -> Arrays.stream(v.split(","))).map(String::strip).filter(v -> !v.isEmpty()).forEach(out::add);
    return out;
  }
}
