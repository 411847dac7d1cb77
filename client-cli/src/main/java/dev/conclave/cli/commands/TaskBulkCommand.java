package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave tasks bulk}: one action on every task a filter matches, in one transaction
 * ({@code POST /api/v1/tasks/bulk}); prints how many the filter matched and the action changed.
 */
@Command(name = "bulk", mixinStandardHelpOptions = true,
  description = {"Retry, cancel or reprioritize every task a filter matches, all or nothing (POST /api/v1/tasks/bulk).",
    "Give at least one filter; every one given must hold. More than 10,000 matches is 409 too_many_tasks and changes nothing."},
  footer = {"", "Example:", "  conclave tasks bulk --action retry --status failed --skill typescript --older-than-minutes 60",
    "  conclave tasks bulk --action reprioritize --priority critical --id t-1 --id t-2",
    "  conclave tasks bulk --action cancel --agent agent-7 --reason 'agent retired'"})
final class TaskBulkCommand implements Callable<Integer> {

  @Option(names = "--action", required = true, description = "retry (failed and cancelled tasks), cancel or reprioritize (unfinished tasks).")
  String action;

  @Option(names = "--status", paramLabel = "STATUS", description = "Tasks in these states (repeat, or commas).")
  List<String> status;

  @Option(names = "--skill", description = "Tasks that require this skill.")
  String skill;

  @Option(names = "--agent", description = "Tasks this swarm agent holds, or failed before.")
  String agent;

  @Option(names = "--older-than-minutes", description = "Tasks created more than this many minutes ago.")
  Integer olderThanMinutes;

  @Option(names = "--id", paramLabel = "TASK", description = "These tasks (repeat, or commas; up to 1000).")
  List<String> ids;

  @Option(names = "--priority", description = "For reprioritize: critical, high, medium or low.")
  String priority;

  @Option(names = "--reason", description = "For cancel: why.")
  String reason;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    JsonObject filter = new JsonObject();
    TaskFields.put(filter, "status", TaskFields.list(status));
    TaskFields.put(filter, "skill", skill);
    TaskFields.put(filter, "agent", agent);
    TaskFields.put(filter, "olderThanMinutes", olderThanMinutes);
    TaskFields.put(filter, "ids", TaskFields.list(ids));
    JsonObject body = new JsonObject().put("action", action).put("filter", filter);
    TaskFields.put(body, "priority", priority);
    TaskFields.put(body, "reason", reason);
    try (Api api = target.api()) {
      JsonObject outcome = api.post("/api/v1/tasks/bulk", body);
      Rendering.print(System.out, output.format, outcome, List.of(outcome), List.of(Column.field("ACTION", "action"),
        Column.field("MATCHED", "matched"), Column.field("CHANGED", "changed")));
      return 0;
    }
  }
}
