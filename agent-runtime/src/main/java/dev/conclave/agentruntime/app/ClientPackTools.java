package dev.conclave.agentruntime.app;

import dev.conclave.agent.PackToolInfo;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.Session;
import dev.conclave.agent.client.AgentClient;
import dev.conclave.agentruntime.backend.PackTools;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;

/** {@link PackTools} of the running {@link AgentClient}'s current session; set once the client is built. */
final class ClientPackTools implements PackTools {

  private volatile AgentClient client;

  void bind(AgentClient client) {
    this.client = client;
  }

  @Override
  public List<PackToolInfo> available() {
    AgentClient c = client;
    return c == null ? List.of() : c.session().map(Session::availableTools).orElse(List.of());
  }

  @Override
  public Future<PackToolResult> execute(String toolName, String inputJson) {
    AgentClient c = client;
    return c == null ? Future.failedFuture(new IllegalStateException("the agent is not connected")) : c.executePackTool(toolName, inputJson);
  }

  @Override
  public Map<String, String> secrets() {
    AgentClient c = client;
    return c == null ? Map.of() : c.session().map(Session::secrets).orElse(Map.of());
  }
}
