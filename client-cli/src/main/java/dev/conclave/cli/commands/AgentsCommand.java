package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code conclave agents}: the agents the caller may act on, with their state (connected or not),
 * node and lifecycle. ListAgents ({@code GET /agents}) gives the first two, the registry
 * ({@code GET /registry/agents}) the lifecycle; the JSON is ListAgents' document with each agent's
 * {@code lifecycle} added.
 */
@Command(name = "agents", mixinStandardHelpOptions = true, subcommands = {AgentCommand.Show.class, AgentRetentionCommand.class},
  description = "List the agents you may act on: id, name, state, node, lifecycle, backend.",
  footer = {"", "Example:", "  conclave agents", "  conclave agents -o json | jq -r '.agents[].agentId'", "  conclave agents show echo-1", "  conclave agents retention echo-1 --days 7"})
public final class AgentsCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("ID", "agentId"), Column.field("NAME", "name"),
    new Column("STATE", r -> r.getBoolean("connected", false) ? "connected" : "disconnected"), Column.field("NODE", "node"),
    Column.field("LIFECYCLE", "lifecycle"), Column.field("BACKEND", "backend"));

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      JsonObject doc = agents(api);
      Rendering.print(System.out, output.format, doc, doc.getJsonArray("agents").stream().map(JsonObject.class::cast).toList(), COLUMNS);
      return 0;
    }
  }

  /** ListAgents with each agent's lifecycle from the registry. */
  static JsonObject agents(Api api) {
    JsonObject listed = api.get("/api/v1/gateway/agents");
    JsonArray registry = api.get("/api/v1/gateway/registry/agents").getJsonArray("agents", new JsonArray());
    Map<String, JsonObject> entries = new HashMap<>();
    registry.forEach(e -> {
      JsonObject entry = (JsonObject) e;
      entries.put(entry.getString("agentId", entry.getString("agent_id", entry.getString("id"))), entry);
    });
    listed.getJsonArray("agents", new JsonArray()).forEach(a -> {
      JsonObject agent = (JsonObject) a;
      JsonObject entry = entries.get(agent.getString("agentId"));
      if (entry != null && entry.getString("lifecycle") != null) {
        agent.put("lifecycle", entry.getString("lifecycle"));
      }
    });
    return listed;
  }
}
