package dev.conclave.gateway.sessions;

import dev.conclave.gateway.model.AgentRecord;
import dev.conclave.platform.auth.AgentScope;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.SessionTokens;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Future;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Builds the Welcome a registered agent receives: the tools its capabilities allow (built-ins and
 * live packs, cluster-wide), an MCP token that works on the MCP endpoint only, for those tools, while
 * this session lasts, and its secrets (global ones overridden by its own), decrypted for this message
 * only. One per node.
 */
final class Welcomes {

  private static final Logger LOG = LoggerFactory.getLogger(Welcomes.class);

  /**
   * The longest an MCP token lives; it ends before, with its session. An agent gets a fresh one on
   * every registration.
   */
  static final Duration MCP_TOKEN_TTL = Duration.ofHours(24);

  private final TokenService tokens;
  private final PackTools packTools;
  private final Secrets secrets;
  private final String nodeId;
  private final String mcpEndpoint;

  Welcomes(TokenService tokens, PackTools packTools, Secrets secrets, String nodeId, String mcpEndpoint) {
    this.tokens = tokens;
    this.packTools = packTools;
    this.secrets = secrets;
    this.nodeId = nodeId;
    this.mcpEndpoint = mcpEndpoint;
  }

  /** The session's MCP token: it works once recorded, and the session ends it when it ends. */
  SessionTokens.SessionToken mcpToken(AgentRecord agent, Principal principal) {
    return tokens.issueMcp(principal, MCP_TOKEN_TTL, new AgentScope(agent.agentId(), Set.copyOf(agent.capabilities())));
  }

  /** The Welcome, with {@code mcpToken}, sent once the token is recorded. */
  Future<ServerMessage> issue(AgentRecord agent, Principal principal, SessionTokens.SessionToken mcpToken) {
    Set<String> capabilities = Set.copyOf(agent.capabilities());
    Future<Void> mcp = mcpToken.recorded();
    // a registry hiccup costs the agent its tool list until it reconnects, not its registration
    var tools = packTools.available(capabilities).recover(err -> {
      LOG.warn("tool registry unreadable; welcoming without tools agent={} error={}", agent.agentId(), err.getMessage());
      return Future.succeededFuture(List.of());
    });
    // no secrets, no registration: an agent missing its environment would fail later and less clearly
    var resolved = secrets.resolveFor(agent.agentId());
    return Future.all(mcp, tools, resolved).map(v -> ServerMessage.newBuilder().setWelcome(Welcome.newBuilder()
      .setServerId(nodeId)
      .setAgentId(agent.agentId())
      .setInstanceId(agent.instanceId())
      .setPrincipalId(principal.id().toString())
      .addAllAvailableTools(tools.result())
      .setMcpToken(mcpToken.token())
      .setMcpEndpoint(mcpEndpoint)
      .putAllSecrets(resolved.result())).build());
  }
}
