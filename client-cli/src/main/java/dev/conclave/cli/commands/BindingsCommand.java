package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave bindings [create|delete]}: which agent a frontend's channel talks to (admins;
 * {@code GET}, {@code POST} and {@code DELETE /bindings}). A message to conversation
 * {@code <frontend>:<channel>} goes to the bound agent.
 */
@Command(name = "bindings", mixinStandardHelpOptions = true, subcommands = {BindingsCommand.Create.class, BindingsCommand.Delete.class},
  description = "List the bindings of frontends' channels to agents (admins): id, frontend, channel, agent, created.",
  footer = {"", "Example:", "  conclave bindings", "  conclave bindings --agent echo-1 -o json",
    "  conclave bindings create slack C024BE91L echo-1", "  conclave bindings delete 3f2a…"})
public final class BindingsCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("ID", "id"), Column.field("FRONTEND", "frontend"),
    Column.field("CHANNEL", "channelId"), Column.field("AGENT", "agentId"), Column.field("CREATED", "createdAt"));

  @Option(names = "--frontend", description = "Only this frontend's.")
  String frontend;

  @Option(names = "--agent", description = "Only those bound to this agent.")
  String agent;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    List<String> query = new ArrayList<>();
    if (frontend != null) {
      query.add("frontend=" + Api.seg(frontend));
    }
    if (agent != null) {
      query.add("agentId=" + Api.seg(agent));
    }
    try (Api api = target.api()) {
      JsonObject doc = api.get("/api/v1/gateway/bindings" + (query.isEmpty() ? "" : "?" + String.join("&", query)));
      Rendering.print(System.out, output.format, doc, doc.getJsonArray("bindings").stream().map(JsonObject.class::cast).toList(), COLUMNS);
      return 0;
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
    description = "Bind a frontend's channel to an agent (admins): messages to conversation FRONTEND:CHANNEL go to AGENT. "
      + "A channel already bound is 409 binding_exists.",
    footer = {"", "Example:", "  conclave bindings create slack C024BE91L echo-1", "  conclave bindings create matrix '!room:matrix.org' echo-1 -o json"})
  static final class Create implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FRONTEND", description = "The frontend, an identifier without ':' (slack, matrix, …).")
    String frontend;

    @Parameters(index = "1", paramLabel = "CHANNEL", description = "The channel's id as the frontend spells it.")
    String channel;

    @Parameters(index = "2", paramLabel = "AGENT", description = "The agent's id.")
    String agent;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject made = api.post("/api/v1/gateway/bindings",
          new JsonObject().put("frontend", frontend).put("channelId", channel).put("agentId", agent));
        Rendering.print(System.out, output.format, made, List.of(made), COLUMNS);
        return 0;
      }
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true,
    description = "Delete a binding (admins): its conversation goes nowhere until bound again. An unknown id is 404 binding_not_found.",
    footer = {"", "Example:", "  conclave bindings delete 3f2a9c4e-…"})
  static final class Delete implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ID", description = "The binding's id (conclave bindings).")
    String id;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject deleted = api.delete("/api/v1/gateway/bindings/" + Api.seg(id));
        Rendering.print(System.out, output.format, deleted, List.of(deleted), List.of(Column.field("ID", "id"),
          Column.field("FRONTEND", "frontend"), Column.field("CHANNEL", "channelId"), Column.field("AGENT", "agentId"),
          Column.field("DELETED", "deleted")));
        return 0;
      }
    }
  }
}
