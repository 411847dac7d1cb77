package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave principal create NAME}: a new approved principal (admins; {@code POST /principals}).
 * The API answers no token: {@code conclave tokens issue} gives one.
 */
@Command(name = "principal", mixinStandardHelpOptions = true, subcommands = PrincipalCommand.Create.class,
  description = "Manage one principal: create (admins). List them with conclave principals.",
  footer = {"", "Example:", "  conclave principal create alice", "  conclave principal create ci-bot --type agent"})
public final class PrincipalCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    throw CliFailure.usage("give a subcommand: create (conclave principal create --help)");
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
    description = "Create an approved principal (admins) and print its id. A client gets the member role unless --role says "
      + "otherwise; an agent belongs to --owner, else to you. It has no token yet: conclave tokens issue gives one.",
    footer = {"", "Example:", "  conclave principal create alice",
      "  conclave principal create ops --role admin --role member -o json | jq -r .principalId",
      "  conclave principal create ci-bot --type agent --owner alice"})
  static final class Create implements Callable<Integer> {

    static final List<Column> COLUMNS = List.of(Column.field("ID", "principalId"), Column.field("TYPE", "type"),
      Column.field("NAME", "displayName"), Column.field("STATUS", "status"), Column.field("ROLES", "roles"));

    @Parameters(index = "0", paramLabel = "NAME", description = "Its display name.")
    String name;

    @Option(names = "--type", defaultValue = "client", paramLabel = "TYPE", description = "client (default), agent or pack.")
    String type;

    @Option(names = "--role", paramLabel = "ROLE", description = "A role (repeat for several): member, admin, owner.")
    List<String> roles;

    @Option(names = "--owner", paramLabel = "PRINCIPAL", description = "For an agent: the member it belongs to (id or name; default: you).")
    String owner;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      JsonObject body = new JsonObject().put("type", type).put("displayName", name);
      if (roles != null) {
        body.put("roles", new JsonArray(List.copyOf(roles)));
      }
      try (Api api = target.api()) {
        if (owner != null) {
          body.put("ownerId", PrincipalRef.resolve(api, owner));
        }
        JsonObject created = api.post("/api/v1/gateway/principals", body);
        Rendering.print(System.out, output.format, created, List.of(created), COLUMNS);
        return 0;
      }
    }
  }
}
