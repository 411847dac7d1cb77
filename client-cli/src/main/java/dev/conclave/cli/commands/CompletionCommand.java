package dev.conclave.cli.commands;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code conclave completion bash|zsh}: the completion script picocli generates from the command
 * line itself, so it knows every command and flag. The same script serves zsh (it loads bashcompinit).
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
  description = "Print a shell completion script for conclave (bash or zsh).",
  footer = {"", "Example:", "  source <(./conclave completion bash)      # or add it to ~/.bashrc",
    "  ./conclave completion zsh > \"$${fpath[1]}/_conclave\""})
public final class CompletionCommand implements Callable<Integer> {

  enum Shell { bash, zsh }

  @Parameters(index = "0", description = "bash or zsh.")
  Shell shell;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    System.out.print(AutoComplete.bash("conclave", spec.root().commandLine()));
    System.out.flush();
    return 0;
  }
}
