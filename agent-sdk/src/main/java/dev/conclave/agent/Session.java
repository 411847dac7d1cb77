package dev.conclave.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One successful registration: what the gateway said in its {@code Welcome}, and where.
 * A new session starts with every (re)connection.
 *
 * @param endpoint the gateway endpoint that holds the stream
 * @param serverId the gateway node that holds the stream
 * @param agentId the agent id the gateway confirmed
 * @param instanceId short code humans use to refer to this agent
 * @param principalId the principal the bearer token belongs to
 * @param availableTools pack tools this agent may call through {@link dev.conclave.agent.client.AgentClient#executePackTool}
 * @param mcpToken bearer token for the MCP endpoint
 * @param mcpEndpoint base URL of the MCP endpoint
 * @param secrets environment values the gateway resolved for this agent
 */
public record Session(Endpoint endpoint, String serverId, String agentId, String instanceId, String principalId,
                      List<PackToolInfo> availableTools, String mcpToken, String mcpEndpoint,
                      Map<String, String> secrets) {

  public Session {
    availableTools = List.copyOf(availableTools);
    secrets = Map.copyOf(secrets);
  }

  /** The offered pack tool of that name. */
  public Optional<PackToolInfo> tool(String name) {
    return availableTools.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  @Override
  public String toString() {
    // secrets and the MCP token stay out of logs
    return "Session[endpoint=" + endpoint + ", serverId=" + serverId + ", agentId=" + agentId
      + ", instanceId=" + instanceId + ", principalId=" + principalId + ", tools=" + availableTools.size()
      + ", secrets=" + secrets.keySet() + "]";
  }
}
