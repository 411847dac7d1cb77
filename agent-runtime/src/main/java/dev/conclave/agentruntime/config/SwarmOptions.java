package dev.conclave.agentruntime.config;

import dev.conclave.agentruntime.backend.BackendKind;
import dev.conclave.agentruntime.swarm.SwarmConfig;
import dev.conclave.settings.Setting;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/** The swarm settings ({@code --swarm} and the settings it uses), checked: every error names its flag. */
public final class SwarmOptions {

  private SwarmOptions() {
  }

  /**
   * The swarm configuration, or empty when {@code --swarm} is off.
   *
   * @throws IllegalArgumentException naming the first setting that is wrong
   */
  public static Optional<SwarmConfig> from(SettingValues v, BackendKind backend) {
    String on = v.require(AgentSettings.SWARM, "").toLowerCase(Locale.ROOT);
    if (!on.equals("true") && !on.equals("false")) {
      throw new IllegalArgumentException("--swarm must be true or false, got '" + on + "'");
    }
    if (on.equals("false")) {
      return Optional.empty();
    }
    Optional<URI> url = v.get(AgentSettings.SWARM_URL).map(SwarmOptions::url);
    int minutes = (int) Math.min(positive(v, AgentSettings.MAX_TASK_MINUTES), 7 * 24 * 60);
    return Optional.of(new SwarmConfig(url, agentType(backend), v.get(AgentSettings.SKILLS).map(RuntimeConfig::list).orElse(java.util.List.of()),
      minutes, v.get(AgentSettings.QUALITY_COMMAND), Duration.ofSeconds(positive(v, AgentSettings.CLAIM_WAIT)),
      Duration.ofSeconds(positive(v, AgentSettings.LEASE_WAIT)), SwarmConfig.IDLE_HEARTBEAT, SwarmConfig.BUSY_HEARTBEAT,
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

  private static URI url(String text) {
    try {
      URI uri = new URI(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new IllegalArgumentException("--swarm-url must be an http:// or https:// address, got '" + text + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("--swarm-url is not an address: " + e.getMessage());
    }
  }

  private static long positive(SettingValues v, Setting<String> s) {
    String raw = v.require(s, "");
    try {
      long n = Long.parseLong(raw);
      if (n > 0 && n <= 1_000_000) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(s.flag().map(Setting.Flag::name).orElse(s.name())
      + " must be a whole number from 1 to 1000000, got '" + raw + "'");
  }
}
