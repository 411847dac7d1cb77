package dev.conclave.platform.auth;

import java.util.Set;

/**
 * The agent a scoped token acts for, and the capabilities it registered with. MCP tokens carry one,
 * so the MCP endpoint shows and runs exactly the tools that agent may use.
 */
public record AgentScope(String agentId, Set<String> capabilities) {

  public AgentScope {
    capabilities = Set.copyOf(capabilities);
  }
}
