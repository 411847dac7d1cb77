package dev.conclave.node;

import dev.conclave.agentruntime.cli.AgentCommand;
import dev.conclave.cli.commands.ClientCommands;
import dev.conclave.platform.runtime.JvmTuning;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Set;

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

  /**
   * The commands of the node itself, which run without the others built: picocli builds every
   * subcommand it is given (the agent's options from its settings, a dozen client commands), which a
   * node's start or a token paid for in class loading without using any of it (issue 45).
   */
  static final Set<String> NODE_COMMANDS = Set.of("serve", "postgres", "token", "restore", "dev-certs");

  public static void main(String[] args) {
    JvmTuning.apply();
    if (servesPlainly(args)) {
      // a node's start: nothing to parse, so picocli (which reads every option's annotations to build its
      // model) is not built; it cost the start about a tenth of a second (issue 45)
      new ServeCommand().run();
      return;
    }
    int code = commandLine(args).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Whether {@code args} ask for a node with no option to parse: none at all, or {@code serve} alone. */
  static boolean servesPlainly(String[] args) {
    return args.length == 0 || (args.length == 1 && args[0].equals("serve"));
  }

  /** The command line for {@code args}: the node's own commands alone when one of them runs, else all of them. */
  static CommandLine commandLine(String[] args) {
    CommandLine cli = new CommandLine(new Main());
    if (args.length == 0 || NODE_COMMANDS.contains(args[0])) {
      return cli;
    }
    cli.addSubcommand("agent", AgentCommand.commandLine());
    cli.addSubcommand("session", new dev.conclave.node.session.SessionCommand());
    ClientCommands.install(cli);
    if (ClientCommands.names().contains(args[0])) {
      CliLogs.quietClient(System.getenv());
    }
    return cli;
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
