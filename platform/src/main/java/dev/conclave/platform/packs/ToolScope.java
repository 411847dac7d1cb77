package dev.conclave.platform.packs;

import dev.conclave.proto.coven.ToolDefinition;

import java.time.Duration;
import java.util.Set;

/** The rules every surface applies to a tool: who may see and call it, and how long a call may take. */
public final class ToolScope {

  /** A tool whose definition says 0 seconds gets this long, as the Coven protocol specifies. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  /** The longest timeout a tool may declare. */
  public static final int MAX_TIMEOUT_SECONDS = 3600;

  private ToolScope() {
  }

  /**
   * An agent may see and call a tool when it has every capability the tool requires. The
   * capabilities are the agent's effective ones: what it declared at registration, less any that
   * needs a grant its principal does not hold ({@code auth.CapabilityGrants#effective}); its session
   * and its MCP token carry those, never what a caller claims.
   */
  public static boolean allows(Set<String> capabilities, ToolDefinition tool) {
    return capabilities.containsAll(tool.getRequiredCapabilitiesList());
  }

  public static Duration timeout(ToolDefinition tool) {
    return tool.getTimeoutSeconds() <= 0 ? DEFAULT_TIMEOUT : Duration.ofSeconds(tool.getTimeoutSeconds());
  }
}
