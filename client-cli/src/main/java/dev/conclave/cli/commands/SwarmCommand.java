package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave swarm agents}: the swarm coordinator's agents (Jetpack protocol agents, admins;
 * {@code GET /api/v1/agents}), not the gateway's Coven agents that {@code conclave agents} lists.
 */
@Command(name = "swarm", mixinStandardHelpOptions = true,
  description = "The swarm coordinator (admins). Its tasks are 'conclave tasks', its schedules 'conclave schedules'.",
  footer = {"", "Example:", "  conclave swarm agents --status idle"},
  subcommands = SwarmCommand.Agents.class)
public final class SwarmCommand {

  @Command(name = "agents", mixinStandardHelpOptions = true,
    description = "List the swarm's agents (GET /api/v1/agents): id, type, status, skills, current task, last heartbeat.",
    footer = {"", "Example:", "  conclave swarm agents", "  conclave swarm agents --status offline -o json | jq -r '.agents[].id'"})
  static final class Agents implements Callable<Integer> {
    static final List<Column> COLUMNS = List.of(Column.field("ID", "id"), Column.field("NAME", "name"), Column.field("TYPE", "type"),
      Column.field("STATUS", "status"), new Column("SKILLS", r -> r.getJsonObject("capabilities", new JsonObject()).getValue("skills")),
      Column.field("TASK", "currentTask"), Column.field("DONE", "tasksCompleted"), Column.field("FAILED", "tasksFailed"),
      Column.field("LAST HEARTBEAT", "lastHeartbeatAt"));

    @Option(names = "--status", description = "Only agents in this status: idle, busy, error or offline.")
    String status;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      StringBuilder query = new StringBuilder();
      TasksCommand.param(query, "status", status);
      try (Api api = target.api()) {
        JsonObject doc = api.get("/api/v1/agents" + query);
        Rendering.print(System.out, output.format, doc, doc.getJsonArray("agents", new JsonArray()).stream().map(JsonObject.class::cast).toList(), COLUMNS);
        return 0;
      }
    }
  }
}
