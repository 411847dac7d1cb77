package dev.conclave.gateway.sessions;

import dev.conclave.platform.auth.TokenService;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Future;

import java.time.Duration;

/** Builds the Welcome a registered agent receives. */
final class Welcomes {

  /** MCP tokens are short-lived; an agent gets a fresh one on every registration. */
  static final Duration MCP_TOKEN_TTL = Duration.ofHours(24);

  private Welcomes() {
  }

  static Future<ServerMessage> issue(SessionServices services, Registration.Registered r) {
    TokenService tokens = services.tokens();
    return tokens.issue(r.principal(), MCP_TOKEN_TTL, "mcp").map(mcp -> ServerMessage.newBuilder().setWelcome(Welcome.newBuilder()
      .setServerId(services.nodeId())
      .setAgentId(r.agent().agentId())
      .setInstanceId(r.agent().instanceId())
      .setPrincipalId(r.principal().id().toString())
      .setMcpToken(mcp.token())
      .setMcpEndpoint(services.settings().mcpEndpoint())).build());
  }
}
