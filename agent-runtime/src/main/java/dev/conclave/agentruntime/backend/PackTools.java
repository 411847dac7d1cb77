package dev.conclave.agentruntime.backend;

import dev.conclave.agent.PackToolInfo;
import dev.conclave.agent.PackToolResult;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;

/**
 * What the gateway gives this agent for its current session: the pack tools of its
 * {@code Welcome.available_tools}, a way to run them ({@code ExecutePackTool}), and the secrets of
 * its {@code Welcome.secrets}.
 */
public interface PackTools {

  /** The pack tools offered right now; empty while not registered. */
  List<PackToolInfo> available();

  /** Runs a pack tool through the gateway. */
  Future<PackToolResult> execute(String toolName, String inputJson);

  /** The secrets the gateway resolved for this agent; empty while not registered. */
  Map<String, String> secrets();

  /** No tools and no secrets, for backends running without a gateway (tests). */
  static PackTools none() {
    return new PackTools() {
      @Override
      public List<PackToolInfo> available() {
        return List.of();
      }

      @Override
      public Future<PackToolResult> execute(String toolName, String inputJson) {
        return Future.failedFuture(new IllegalStateException("no pack tools without a gateway"));
      }

      @Override
      public Map<String, String> secrets() {
        return Map.of();
      }
    };
  }
}
