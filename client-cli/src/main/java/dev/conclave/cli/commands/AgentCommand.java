package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave agents show ID}: one agent, as {@code agents} shows it, with every field. (Under
 * {@code agents}, because {@code conclave agent} runs the agent program.)
 */
final class AgentCommand {

  @Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show one agent: its ListAgents entry with its lifecycle (exit 1, agent_not_found, when you may not see it).",
    footer = {"", "Example:", "  conclave agents show echo-1 -o yaml"})
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", description = "The agent's id.")
    String id;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject agent = AgentsCommand.agents(api).getJsonArray("agents").stream().map(JsonObject.class::cast)
          .filter(a -> id.equals(a.getString("agentId"))).findFirst()
          .orElseThrow(() -> new CliFailure(ExitCodes.SERVER_ERROR, "agent_not_found: no agent " + id + " that you may act on"));
        List<JsonObject> rows = agent.fieldNames().stream().map(f -> new JsonObject().put("field", f).put("value", agent.getValue(f))).toList();
        Rendering.print(System.out, output.format, agent, rows, List.of(Column.field("FIELD", "field"), Column.field("VALUE", "value")));
        return 0;
      }
    }
  }
}
