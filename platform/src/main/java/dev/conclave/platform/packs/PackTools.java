package dev.conclave.platform.packs;

import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;

import java.util.List;
import java.util.Set;

/**
 * What other roles need from the pack host, wherever in the cluster it runs: the tools an agent may
 * use, and running one of them. The gateway (Welcome, ExecutePackTool) and MCP use this and nothing
 * else of the pack host.
 */
public interface PackTools {

  /** Every live tool (built-ins and connected packs) an agent with {@code capabilities} may use, by name. */
  Future<List<ToolDefinition>> available(Set<String> capabilities);

  /**
   * Runs one call. Never fails: every problem (unknown tool, missing capability, timeout, the pack
   * or its node going away, no pack host at all) is an outcome with a clear error.
   */
  Future<ToolOutcome> execute(ToolCall call);
}
