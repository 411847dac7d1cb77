package dev.conclave.cli.commands;

import dev.conclave.cli.CliFailure;
import picocli.CommandLine;

import java.util.List;

/**
 * The client commands of {@code ./conclave} (docs/cli.md), added to the node jar's command line: they
 * need a URL and a credential only, never a database or a data dir.
 */
public final class ClientCommands {

  private ClientCommands() {
  }

  /** The commands, by name. */
  public static List<Object> all() {
    return List.of(new ContextCommand(), new CompletionCommand(), new SendCommand(), new HistoryCommand(),
      new AgentsCommand(), new LifecycleCommand.Pause(), new LifecycleCommand.Resume(),
      new LifecycleCommand.Retire());
  }

  /**
   * Adds the commands to {@code root} and prints a {@link CliFailure} as one line on stderr,
   * {@code conclave <command>: <line>}, ending with its exit code (docs/cli.md); other failures keep
   * picocli's handling.
   */
  public static void install(CommandLine root) {
    for (Object command : all()) {
      root.addSubcommand(command);
    }
    CommandLine.IExecutionExceptionHandler previous = root.getExecutionExceptionHandler();
    root.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      if (ex instanceof CliFailure failure) {
        cmd.getErr().println("conclave " + cmd.getCommandName() + ": " + failure.getMessage());
        cmd.getErr().flush();
        return failure.exitCode();
      }
      if (previous == null) {
        throw ex;
      }
      return previous.handleExecutionException(ex, cmd, parsed);
    });
  }
}
