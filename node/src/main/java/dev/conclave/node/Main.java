package dev.conclave.node;

import dev.conclave.agentruntime.cli.AgentCommand;
import dev.conclave.cli.commands.ClientCommands;
import dev.conclave.platform.runtime.JvmTuning;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code conclave-node} executable. Without a subcommand it runs {@code serve}; {@code agent}
 * runs an AI agent against a node (module agent-runtime); {@code session} drives an agent through the
 * session protocol over NDJSON; the client commands ({@code send}, {@code agents}, {@code context} …,
 * module client-cli, docs/cli.md) talk to a node over its public HTTP and WebSocket APIs.
 */
@Command(name = "conclave-node",
  mixinStandardHelpOptions = true,
  versionProvider = Main.Version.class,
  description = "Conclave: a clustered control plane for AI agents.",
  subcommands = {ServeCommand.class, PostgresCommand.class, TokenCommand.class, RestoreCommand.class, DevCertsCommand.class})
public final class Main implements Runnable {

  public static void main(String[] args) {
    JvmTuning.apply();
    CommandLine cli = new CommandLine(new Main());
    cli.addSubcommand("agent", AgentCommand.commandLine());
    cli.addSubcommand("session", new dev.conclave.node.session.SessionCommand());
    ClientCommands.install(cli);
    if (args.length > 0 && ClientCommands.names().contains(args[0])) {
      CliLogs.quietClient(System.getenv());
    }
    int code = cli.execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public void run() {
    new ServeCommand().run();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"conclave-node " + (v == null ? "development build" : v)};
    }
  }
}
