package dev.conclave.cli.commands;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every client command and subcommand ends its {@code --help} with an example (docs/cli.md), and the
 * swarm ones read their flags into the API's member names.
 */
class HelpExamplesTest {

  @Test
  void everyCommandAndSubcommandHasAnExample() {
    CommandLine root = new CommandLine(new Root());
    ClientCommands.install(root);
    List<String> missing = new ArrayList<>();
    walk(root, missing);
    assertThat(missing).as("commands whose --help has no example").isEmpty();
  }

  @Test
  void taskFlagsBecomeTheApisMembers() {
    TaskCreateCommand create = new TaskCreateCommand();
    new CommandLine(create).parseArgs("--title", "Add login", "--priority", "high", "--skill", "react,TS", "--skill", "css",
      "--depends-on", "t-1", "--unique-key", "k", "--unique-window-minutes", "60", "--max-retries", "3");
    assertThat(create.fields.json().encode()).isEqualTo("{\"title\":\"Add login\",\"priority\":\"high\",\"requiredSkills\":[\"react\",\"TS\",\"css\"],"
      + "\"maxRetries\":3}");
    assertThat(create.dependencies).containsExactly("t-1");
  }

  @Test
  void queryParametersAreEncoded() {
    StringBuilder q = new StringBuilder();
    TasksCommand.param(q, "status", TaskFields.list(List.of("failed", "cancelled")));
    TasksCommand.param(q, "branch", "feature/a b");
    TasksCommand.param(q, "nothing", null);
    assertThat(q).hasToString("?status=failed%2Ccancelled&branch=feature%2Fa%20b");
  }

  private static void walk(CommandLine cmd, List<String> missing) {
    for (CommandLine sub : cmd.getSubcommands().values()) {
      List<String> footer = List.of(sub.getCommandSpec().usageMessage().footer());
      if (!footer.contains("Example:")) {
        missing.add(sub.getCommandSpec().qualifiedName());
      }
      walk(sub, missing);
    }
  }

  @CommandLine.Command(name = "conclave")
  static final class Root {
  }
}
