package dev.conclave.agentruntime.config;

import dev.conclave.agentruntime.backend.BackendKind;
import dev.conclave.agentruntime.swarm.SwarmConfig;

import java.net.URI;
import java.util.Optional;

/** The swarm settings ({@code --swarm} and the settings it uses; {@link AgentSettings} parses each, naming its flag). */
public final class SwarmOptions {

  private SwarmOptions() {
  }

  /**
   * The swarm configuration, or empty when {@code --swarm} is off.
   *
   * @throws IllegalArgumentException naming the first setting that is wrong
   */
  public static Optional<SwarmConfig> from(SettingValues v, BackendKind backend) {
    if (!v.require(AgentSettings.SWARM, "")) {
      return Optional.empty();
    }
    Optional<URI> url = v.get(AgentSettings.SWARM_URL);
    int minutes = (int) Math.min(v.require(AgentSettings.MAX_TASK_MINUTES, ""), 7 * 24 * 60);
    return Optional.of(new SwarmConfig(url, agentType(backend), v.get(AgentSettings.SKILLS).orElse(java.util.List.of()),
      minutes, v.get(AgentSettings.QUALITY_COMMAND), v.require(AgentSettings.CLAIM_WAIT, ""),
      v.require(AgentSettings.LEASE_WAIT, ""), SwarmConfig.IDLE_HEARTBEAT, SwarmConfig.BUSY_HEARTBEAT,
      SwarmConfig.PROGRESS_INTERVAL, SwarmConfig.STOP_GRACE));
  }

  /** The protocol's agent type for a backend. */
  static String agentType(BackendKind backend) {
    return switch (backend) {
      case CLAUDE_CLI -> "claude-code";
      case CODEX_CLI -> "codex";
      case OPENAI, ECHO -> "custom";
    };
  }
}
