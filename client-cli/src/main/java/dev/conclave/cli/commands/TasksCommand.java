package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave tasks list|show|create|cancel|retry|bulk}: the swarm's task management API
 * ({@code /api/v1/tasks}, admins; docs/swarm.md "Task management").
 */
@Command(name = "tasks", mixinStandardHelpOptions = true,
  description = "The swarm's tasks (admins): list, show, create (one, or many from JSON lines), cancel, retry, bulk actions.",
  footer = {"", "Example:", "  conclave tasks list --status ready,claimed", "  conclave tasks create --title 'Add login form' --priority high --skill react",
    "  conclave tasks bulk --action retry --status failed --skill typescript"},
  subcommands = {TasksCommand.ListTasks.class, TasksCommand.Show.class, TaskCreateCommand.class, TasksCommand.Cancel.class,
    TasksCommand.Retry.class, TaskBulkCommand.class})
public final class TasksCommand {

  @Command(name = "list", mixinStandardHelpOptions = true,
    description = "List tasks in creation order (GET /api/v1/tasks); each filter given must hold. A table ends with the next page's --after when there is one.",
    footer = {"", "Example:", "  conclave tasks list --status failed,cancelled --priority high",
      "  conclave tasks list --agent agent-1 -o json | jq -r '.tasks[].id'"})
  static final class ListTasks implements Callable<Integer> {
    @Option(names = "--status", paramLabel = "STATUS", description = "blocked, ready, claimed, in_progress, needs_review, completed, pending_retry, failed or cancelled (repeat, or commas).")
    List<String> status;
    @Option(names = "--priority", paramLabel = "PRIORITY", description = "critical, high, medium or low (repeat, or commas).")
    List<String> priority;
    @Option(names = "--type", paramLabel = "TYPE", description = "code, test, browser_test, documentation, review or custom (repeat, or commas).")
    List<String> type;
    @Option(names = "--skill", description = "Only tasks that require this skill.")
    String skill;
    @Option(names = "--agent", description = "Only tasks assigned to this swarm agent.")
    String agent;
    @Option(names = "--branch", description = "Only tasks on this branch.")
    String branch;
    @Option(names = "--limit", defaultValue = "100", description = "At most this many (1-500; default 100).")
    int limit;
    @Option(names = "--after", paramLabel = "CURSOR", description = "The page after this cursor (the nextCursor of the page before).")
    String after;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      StringBuilder query = new StringBuilder("?limit=").append(limit);
      param(query, "status", TaskFields.list(status));
      param(query, "priority", TaskFields.list(priority));
      param(query, "type", TaskFields.list(type));
      param(query, "skill", skill);
      param(query, "assignedAgent", agent);
      param(query, "branch", branch);
      param(query, "after", after);
      try (Api api = target.api()) {
        JsonObject doc = api.get("/api/v1/tasks" + query);
        List<JsonObject> rows = doc.getJsonArray("tasks", new JsonArray()).stream().map(JsonObject.class::cast).toList();
        Rendering.print(System.out, output.format, doc, rows, TaskColumns.TASKS);
        if (output.format == dev.conclave.cli.output.Format.table && doc.getString("nextCursor") != null) {
          System.out.println("(more: --after " + doc.getString("nextCursor") + ")");
        }
        return 0;
      }
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show one task with every field (GET /api/v1/tasks/ID; exit 1, task_not_found, when there is none).",
    footer = {"", "Example:", "  conclave tasks show t-42", "  conclave tasks show t-42 -o json | jq .status"})
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", description = "The task's id.")
    String id;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject task = api.get("/api/v1/tasks/" + Api.seg(id));
        Rendering.print(System.out, output.format, task, TaskColumns.fieldRows(task), TaskColumns.FIELDS);
        return 0;
      }
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true,
    description = "Cancel an unfinished task (POST /api/v1/tasks/ID/cancel): its leases are released, its agent is told to stop.",
    footer = {"", "Example:", "  conclave tasks cancel t-42 --reason 'not needed any more'"})
  static final class Cancel implements Callable<Integer> {
    @Parameters(index = "0", description = "The task's id.")
    String id;
    @Option(names = "--reason", description = "Why; kept as the task's cancelReason.")
    String reason;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject body = new JsonObject();
        TaskFields.put(body, "reason", reason);
        JsonObject task = api.post("/api/v1/tasks/" + Api.seg(id) + "/cancel", body);
        Rendering.print(System.out, output.format, task, List.of(task), TaskColumns.TASKS);
        return 0;
      }
    }
  }

  @Command(name = "retry", mixinStandardHelpOptions = true,
    description = "Put a failed or cancelled task back in line with a fresh retry budget (POST /api/v1/tasks/ID/retry).",
    footer = {"", "Example:", "  conclave tasks retry t-42"})
  static final class Retry implements Callable<Integer> {
    @Parameters(index = "0", description = "The task's id.")
    String id;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject task = api.post("/api/v1/tasks/" + Api.seg(id) + "/retry", new JsonObject());
        Rendering.print(System.out, output.format, task, List.of(task), TaskColumns.TASKS);
        return 0;
      }
    }
  }

  /** Adds {@code &name=value}, the value encoded; nothing for no value. */
  static void param(StringBuilder query, String name, Object value) {
    String text = value instanceof JsonArray a ? String.join(",", a.stream().map(String::valueOf).toList()) : value == null ? null : value.toString();
    if (text != null && !text.isEmpty()) {
      query.append(query.isEmpty() ? '?' : '&').append(name).append('=').append(URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20"));
    }
  }
}
