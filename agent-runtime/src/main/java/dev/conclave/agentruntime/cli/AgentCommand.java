package dev.conclave.agentruntime.cli;

import dev.conclave.agentruntime.app.AgentRuntime;
import dev.conclave.agentruntime.config.AgentSettings;
import dev.conclave.agentruntime.config.RuntimeConfig;
import dev.conclave.agentruntime.config.SettingValues;
import dev.conclave.agentruntime.config.SwarmOptions;
import dev.conclave.agentruntime.swarm.SwarmConfig;
import dev.conclave.settings.Setting;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code agent} command: {@code ./conclave agent --backend openai …} or
 * {@code java -jar conclave-agent.jar …}. Its options are made from {@link AgentSettings}, so the flags,
 * the environment variables and the config file keys cannot drift apart. SIGTERM and SIGINT stop
 * the agent through a JVM shutdown hook ({@link StopOnExit}): the request in flight finishes or is
 * cancelled, and the process exits with the code the run returns (0 after a requested stop).
 */
public final class AgentCommand implements Callable<Integer> {

  private CommandSpec spec;

  /** A {@link CommandLine} for the command, to run alone or to add as a subcommand. */
  public static CommandLine commandLine() {
    AgentCommand command = new AgentCommand();
    CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name("agent");
    spec.mixinStandardHelpOptions(true);
    spec.usageMessage().description(
      "Runs an AI agent on a Conclave node: connects to the endpoints, registers, serves requests until stopped.",
      "Every option can also be set by its environment variable or in the --config file; flags win, then the",
      "environment, then the file.");
    for (Setting<?> s : AgentSettings.all()) {
      if (s.flag().isEmpty()) {
        continue;
      }
      OptionSpec.Builder option = OptionSpec.builder(s.flag().get().name())
        .paramLabel(s.flag().get().label())
        .type(String.class)
        .description(s.description() + " [env " + s.name() + s.defaultText().map(d -> "; default " + d).orElse("") + "]");
      if (s.flag().get().label().startsWith("[")) {
        // an optional value ("--swarm" alone means true)
        option.arity("0..1").fallbackValue("true");
      }
      spec.addOption(option.build());
    }
    command.spec = spec;
    return new CommandLine(spec);
  }

  @Override
  public Integer call() {
    ParseResult parsed = spec.commandLine().getParseResult();
    Map<Setting<?>, String> flags = new HashMap<>();
    for (Setting<?> s : AgentSettings.all()) {
      s.flag().map(Setting.Flag::name).filter(parsed::hasMatchedOption)
        .ifPresent(f -> flags.put(s, parsed.matchedOptionValue(f, (String) null)));
    }
    RuntimeConfig config;
    Optional<SwarmConfig> swarm;
    try {
      SettingValues values = SettingValues.of(flags, System.getenv());
      config = RuntimeConfig.from(values, hostname());
      swarm = SwarmOptions.from(values, config.backend());
    } catch (IllegalArgumentException e) {
      System.err.println("conclave agent: " + e.getMessage());
      return 2;
    }
    CompletableFuture<String> stop = new CompletableFuture<>();
    StopOnExit exit = StopOnExit.install(stop);
    int code = 1;
    try {
      code = AgentRuntime.run(config, swarm, System.getenv(), System.out, stop);
      return code;
    } finally {
      exit.finished(code);
    }
  }

  private static String hostname() {
    String h = System.getenv("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
