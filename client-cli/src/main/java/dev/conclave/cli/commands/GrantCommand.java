package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave grant|revoke AGENT PRINCIPAL}: who besides its owner may act on an agent
 * ({@code POST} and {@code DELETE /agents/{agentId}/grants}; the agent's owner or an admin).
 */
abstract class GrantCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "AGENT", description = "The agent's id.")
  String agent;

  @Parameters(index = "1", paramLabel = "PRINCIPAL", description = "The member's principal id (or, for admins, its name).")
  String principal;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  abstract JsonObject change(Api api, String path, String principalId);

  abstract List<Column> columns();

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      String id = PrincipalRef.resolve(api, principal);
      JsonObject answer = change(api, "/api/v1/gateway/agents/" + Api.seg(agent) + "/grants", id);
      Rendering.print(System.out, output.format, answer, List.of(answer), columns());
      return 0;
    }
  }

  @Command(name = "grant", mixinStandardHelpOptions = true,
    description = "Let a member act on an agent (its owner, or an admin): send to it, follow it, decide its approvals.",
    footer = {"", "Example:", "  conclave grant echo-1 alice", "  conclave grant echo-1 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"})
  static final class Grant extends GrantCommand {
    @Override
    JsonObject change(Api api, String path, String principalId) {
      return api.post(path, new JsonObject().put("principalId", principalId));
    }

    @Override
    List<Column> columns() {
      return List.of(Column.field("AGENT", "agentId"), Column.field("PRINCIPAL", "principalId"), Column.field("GRANTED", "granted"));
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
    description = "Take a member's access to an agent back (its owner, or an admin): its open followers of the agent end.",
    footer = {"", "Example:", "  conclave revoke echo-1 alice"})
  static final class Revoke extends GrantCommand {
    @Override
    JsonObject change(Api api, String path, String principalId) {
      return api.delete(path + "/" + Api.seg(principalId));
    }

    @Override
    List<Column> columns() {
      return List.of(Column.field("AGENT", "agentId"), Column.field("PRINCIPAL", "principalId"), Column.field("GRANTED", "granted"),
        Column.field("CHANGED", "changed"));
    }
  }
}
