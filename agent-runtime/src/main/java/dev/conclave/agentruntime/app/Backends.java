package dev.conclave.agentruntime.app;

import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.claude.ClaudeCliBackend;
import dev.conclave.agentruntime.backend.codex.CodexCliBackend;
import dev.conclave.agentruntime.backend.echo.EchoBackend;
import dev.conclave.agentruntime.backend.openai.OpenAiBackend;
import dev.conclave.agentruntime.backend.openai.OpenAiSettings;
import dev.conclave.agentruntime.config.RuntimeConfig;

import java.time.Duration;
import java.util.Map;

/** Makes the backend {@code --backend} names. */
final class Backends {

  private Backends() {
  }

  static AgentBackend create(RuntimeConfig config, BackendContext context, Map<String, String> env) {
    return switch (config.backend()) {
      case ECHO -> new EchoBackend(context.injections());
      case OPENAI -> new OpenAiBackend(context, new OpenAiSettings(config.baseUrl(), config.model().orElseThrow(),
        () -> config.apiKey(context.packTools().secrets(), env), Duration.ofSeconds(120), config.maxToolRounds()));
      case CLAUDE_CLI -> new ClaudeCliBackend(context, cli(config));
      case CODEX_CLI -> new CodexCliBackend(context, cli(config));
    };
  }

  private static CliSettings cli(RuntimeConfig config) {
    return new CliSettings(config.command().orElseGet(() -> config.backend().executable().orElseThrow()), config.model());
  }
}
