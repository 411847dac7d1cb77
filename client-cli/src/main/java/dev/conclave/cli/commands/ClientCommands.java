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
    return List.of(new ContextCommand(), new CompletionCommand(), new SendCommand(), new TailCommand(), new HistoryCommand(),
      new ApprovalCommand.Approve(), new ApprovalCommand.Deny(), new AnswerCommand(),
      new AgentsCommand(), new LifecycleCommand.Pause(), new LifecycleCommand.Resume(),
      new LifecycleCommand.Retire(),
      new PrincipalsCommand(), new PrincipalCommand(), new TokensCommand(), new GrantCommand.Grant(), new GrantCommand.Revoke(),
      new BindingsCommand(),
      new TasksCommand(), new SwarmCommand(), new SchedulesCommand(), new PacksCommand(), new ToolsCommand(), new AuditCommand());
  }

  /** The commands' names (the launcher passes exactly these to the jar). */
  public static java.util.Set<String> names() {
    java.util.Set<String> names = new java.util.TreeSet<>();
    all().forEach(c -> names.add(c.getClass().getAnnotation(picocli.CommandLine.Command.class).name()));
    return names;
  }

  /**
   * Adds the commands to {@code root} and prints a {@link CliFailure} as one line on stderr,
   * {@code conclave <command> [<subcommand>]: <line>}, ending with its exit code (docs/cli.md); other failures keep
   * picocli's handling.
   */
  public static void install(CommandLine root) {
    for (Object command : all()) {
      root.addSubcommand(command);
    }
    CommandLine.IExecutionExceptionHandler previous = root.getExecutionExceptionHandler();
    root.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      if (ex instanceof CliFailure failure) {
        String name = cmd.getCommandSpec().qualifiedName(" ");
        cmd.getErr().println("conclave " + name.substring(name.indexOf(' ') + 1) + ": " + failure.getMessage());
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
