package dev.conclave.cli.commands;

import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The access commands' arguments and tables, without a node: what picocli accepts and refuses (exit
 * 2), the durations {@code tokens issue --ttl} takes, and that every client command's help ends
 * with an example.
 */
class AccessCommandsTest {

  @CommandLine.Command(name = "conclave")
  static final class Root {
  }

  private static CommandLine root() {
    CommandLine cli = new CommandLine(new Root());
    ClientCommands.install(cli);
    return cli;
  }

  @Test
  void theAccessCommandsAreClientCommands() {
    assertThat(ClientCommands.names()).contains("principals", "principal", "tokens", "grant", "revoke", "bindings");
  }

  @Test
  void ttlTakesSecondsOrANumberWithAUnit() {
    assertThat(TokensCommand.duration("90")).isEqualTo(Duration.ofSeconds(90));
    assertThat(TokensCommand.duration("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(TokensCommand.duration("15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(TokensCommand.duration("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(TokensCommand.duration("30d")).isEqualTo(Duration.ofDays(30));
    assertThatThrownBy(() -> TokensCommand.duration("1w")).isInstanceOfSatisfying(CliFailure.class,
      f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE));
    assertThatThrownBy(() -> TokensCommand.duration("-5")).isInstanceOf(CliFailure.class);
  }

  @Test
  void argumentsParseAndMissingOnesAreUsageErrors() {
    CommandLine.ParseResult parsed = root().parseArgs("bindings", "create", "matrix", "!room:matrix.org", "echo-1", "-o", "json");
    BindingsCommand.Create create = (BindingsCommand.Create) parsed.subcommand().subcommand().commandSpec().userObject();
    assertThat(List.of(create.frontend, create.channel, create.agent)).containsExactly("matrix", "!room:matrix.org", "echo-1");
    assertThat(create.output.format.name()).isEqualTo("json");

    parsed = root().parseArgs("principal", "create", "ci-bot", "--type", "agent", "--role", "member", "--role", "admin");
    PrincipalCommand.Create principal = (PrincipalCommand.Create) parsed.subcommand().subcommand().commandSpec().userObject();
    assertThat(principal.type).isEqualTo("agent");
    assertThat(principal.roles).containsExactly("member", "admin");

    StringWriter err = new StringWriter();
    CommandLine cli = root();
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("bindings", "create", "slack")).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.execute("grant", "echo-1")).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.execute("tokens", "revoke")).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void aGroupWithoutASubcommandSaysWhichItTakesOnOneLine() {
    StringWriter err = new StringWriter();
    CommandLine cli = root();
    cli.setErr(new PrintWriter(err, true));
    assertThat(cli.execute("tokens")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).isEqualTo("conclave tokens: give a subcommand: issue, list or revoke (conclave tokens --help)"
      + System.lineSeparator());
  }

  @Test
  void everyClientCommandsHelpEndsWithAnExample() {
    CommandLine cli = root();
    cli.getSubcommands().values().forEach(AccessCommandsTest::checkHelp);
  }

  private static void checkHelp(CommandLine command) {
    String help = command.getUsageMessage();
    assertThat(help).as(command.getCommandSpec().qualifiedName()).contains("Example:").containsPattern("\n  (\\./)?conclave ")
      .as("picocli reads ${…} in a help text as its own variable: a shell's must be written $${…}").doesNotContain("null");
    command.getSubcommands().values().stream().filter(c -> !c.getCommandName().equals("help")).forEach(AccessCommandsTest::checkHelp);
  }

  @Test
  void principalsShowTheOwnersNameElseItsId() {
    List<JsonObject> rows = List.of(
      new JsonObject().put("principalId", "p1").put("type", "client").put("displayName", "alice").put("status", "approved")
        .put("roles", new JsonArray().add("member")).put("createdAt", "2026-12-06T01:00:00Z"),
      new JsonObject().put("principalId", "p2").put("type", "agent").put("displayName", "bot").put("status", "approved")
        .put("roles", new JsonArray()).put("ownerId", "p1").put("ownerName", "alice").put("createdAt", "2026-12-06T01:01:00Z"),
      new JsonObject().put("principalId", "p3").put("type", "agent").put("displayName", "orphan").put("status", "revoked")
        .put("roles", new JsonArray()).put("ownerId", "p9").put("createdAt", "2026-12-06T01:02:00Z"));
    assertThat(Rendering.table(rows, PrincipalsCommand.COLUMNS).lines().toList()).containsExactly(
      "ID  TYPE    NAME    STATUS    ROLES   OWNER  CREATED",
      "p1  client  alice   approved  member  -      2026-12-06T01:00:00Z",
      "p2  agent   bot     approved  -       alice  2026-12-06T01:01:00Z",
      "p3  agent   orphan  revoked   -       p9     2026-12-06T01:02:00Z");
  }

  @Test
  void aPrincipalIsAnIdOnlyWhenItReadsAsOne() {
    assertThat(PrincipalRef.isUuid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")).isTrue();
    assertThat(PrincipalRef.isUuid("alice")).isFalse();
    assertThat(PrincipalRef.isUuid("1-2-3-4-5")).as("UUID.fromString accepts it; no user means it").isFalse();
  }
}
