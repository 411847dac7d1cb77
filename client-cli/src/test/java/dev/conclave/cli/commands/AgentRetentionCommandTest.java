package dev.conclave.cli.commands;

import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Format;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code conclave agents retention}, without a node: its arguments, the body it {@code PUT}s (a part
 * not given stays as it is, {@code --clear} sends {@code {}}), {@code --clear} with a value refused
 * before any call, and its table.
 */
class AgentRetentionCommandTest {

  @CommandLine.Command(name = "conclave")
  static final class Root {
  }

  private static CommandLine root() {
    CommandLine cli = new CommandLine(new Root());
    ClientCommands.install(cli);
    return cli;
  }

  private static final JsonObject NOW = new JsonObject().put("agentId", "echo-1").put("conversationDays", 7).putNull("keepEvents")
    .put("effective", new JsonObject().put("conversationDays", 7).put("keepEvents", 50).put("requestDays", 7));

  @Test
  void argumentsParseIntoTheCommand() {
    CommandLine.ParseResult parsed = root().parseArgs("agents", "retention", "echo-1", "--days", "7", "--keep", "20", "-o", "json");
    AgentRetentionCommand cmd = (AgentRetentionCommand) parsed.subcommand().subcommand().commandSpec().userObject();
    assertThat(cmd.id).isEqualTo("echo-1");
    assertThat(cmd.days).isEqualTo(7);
    assertThat(cmd.keep).isEqualTo(20);
    assertThat(cmd.clear).isFalse();
    assertThat(cmd.output.format.name()).isEqualTo("json");
  }

  @Test
  void aPartNotGivenStaysAsItIsAndClearSendsNothing() {
    assertThat(AgentRetentionCommand.change(NOW, null, null, false)).as("only showing").isNull();
    assertThat(AgentRetentionCommand.change(NOW, null, 20, false).encode()).isEqualTo("{\"conversationDays\":7,\"keepEvents\":20}");
    assertThat(AgentRetentionCommand.change(NOW, 1, null, false).encode()).isEqualTo("{\"conversationDays\":1,\"keepEvents\":null}");
    assertThat(AgentRetentionCommand.change(NOW, null, null, true).encode()).isEqualTo("{}");
  }

  @Test
  void clearWithAValueIsAUsageErrorBeforeAnyCall() {
    StringWriter err = new StringWriter();
    CommandLine cli = root();
    cli.setErr(new PrintWriter(err, true));
    assertThat(cli.execute("agents", "retention", "echo-1", "--clear", "--days", "3", "--url", "http://127.0.0.1:1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("conclave agents retention: --clear takes no --days or --keep");
    assertThat(cli.execute("agents", "retention", "echo-1", "--days", "many")).isEqualTo(ExitCodes.USAGE);
    assertThat(cli.execute("agents", "retention")).as("no ID").isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void theTableShowsTheOverrideAndWhatApplies() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Rendering.print(new PrintStream(out, true, StandardCharsets.UTF_8), Format.table, NOW, List.of(NOW), AgentRetentionCommand.COLUMNS);
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines.get(0).split("\\s{2,}")).containsExactly("AGENT", "DAYS", "KEEP", "EFFECTIVE DAYS", "EFFECTIVE KEEP", "REQUEST DAYS");
    assertThat(lines.get(1).split("\\s+")).containsExactly("echo-1", "7", "-", "7", "50", "7");
  }
}
