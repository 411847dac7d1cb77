package dev.conclave.agent.pack;

import io.vertx.core.Future;

/**
 * The code behind one pack tool: answers one call.
 *
 * <p>It runs on the pack client's Vert.x event loop, so it must not block: run blocking work with
 * {@code vertx.executeBlocking(...)} or on your own threads and complete the returned future from
 * there. Calls overlap: the client runs up to {@code maxConcurrentCalls} of them at once, across all
 * of the pack's tools.
 */
@FunctionalInterface
public interface ToolHandler {

  /**
   * Runs one call.
   *
   * @return a future that completes with the tool's output as JSON text ({@code null} is sent as
   *     {@code {}}; text that is not JSON is reported as the tool's error), or fails with a
   *     {@link PackToolException} whose message the agent sees verbatim. Any other failure, or an
   *     exception thrown here, reaches the agent as {@code "tool <name> failed: <message>"}.
   */
  Future<String> handle(ToolInvocation call);
}
