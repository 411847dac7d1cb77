package dev.conclave.agentruntime.backend;

import dev.conclave.agent.Feature;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The backends the runtime ships, by the name {@code --backend} takes, with the protocol features
 * each one supports (declared at registration, so the gateway sends only what the backend handles).
 */
public enum BackendKind {
  ECHO("echo", null, null, Set.of(Feature.TOKEN_USAGE, Feature.INJECTION, Feature.CANCELLATION)),
  CLAUDE_CLI("claude-cli", "claude", "Claude Code",
    Set.of(Feature.TOKEN_USAGE, Feature.TOOL_STATES, Feature.INJECTION, Feature.CANCELLATION)),
  CODEX_CLI("codex-cli", "codex", "Codex", Set.of(Feature.TOKEN_USAGE, Feature.TOOL_STATES, Feature.INJECTION, Feature.CANCELLATION)),
  OPENAI("openai", null, null, Set.of(Feature.TOKEN_USAGE, Feature.TOOL_STATES, Feature.INJECTION, Feature.CANCELLATION));

  private final String cliName;
  private final String executable;
  private final String product;
  private final Set<Feature> features;

  BackendKind(String cliName, String executable, String product, Set<Feature> features) {
    this.cliName = cliName;
    this.executable = executable;
    this.product = product;
    this.features = features;
  }

  public String cliName() {
    return cliName;
  }

  /** The program a CLI backend runs when {@code --command} does not name one; empty for the others. */
  public Optional<String> executable() {
    return Optional.ofNullable(executable);
  }

  /** What to install to get {@link #executable()}, such as "Claude Code". */
  public Optional<String> product() {
    return Optional.ofNullable(product);
  }

  /** The features in declaration order. */
  public Feature[] features() {
    return Arrays.stream(Feature.values()).filter(features::contains).toArray(Feature[]::new);
  }

  public static BackendKind parse(String name) {
    for (BackendKind k : values()) {
      if (k.cliName.equalsIgnoreCase(name.strip())) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown backend '" + name + "' (one of " + names() + ")");
  }

  public static String names() {
    return Arrays.stream(values()).map(BackendKind::cliName).collect(Collectors.joining(", "));
  }

  public static List<String> cliNames() {
    return Arrays.stream(values()).map(BackendKind::cliName).toList();
  }
}
