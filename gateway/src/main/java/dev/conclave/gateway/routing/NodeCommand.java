package dev.conclave.gateway.routing;

import io.vertx.core.json.JsonObject;

import java.util.UUID;

/**
 * Commands one gateway node sends to the node holding an agent's stream (see
 * {@code Addresses.gatewayNode}). Each names the agent session by its epoch, so a command meant for
 * an old session is never applied to a newer one.
 */
public final class NodeCommand {

  public static final String WAKE = "wake";
  public static final String CANCEL = "cancel";
  public static final String DISCARD = "discard";
  public static final String INJECT = "inject";
  public static final String APPROVE = "approve";
  public static final String SUPERSEDE = "supersede";
  public static final String RETIRE = "retire";

  private NodeCommand() {
  }

  /** New work was queued for the agent. Epoch 0 means whichever session is current. */
  public static JsonObject wake(String agentId) {
    return base(WAKE, agentId, 0);
  }

  /** Ask the agent to cancel its in-flight request (it declared cancellation). */
  public static JsonObject cancel(String agentId, long epoch, UUID requestId, String reason) {
    return base(CANCEL, agentId, epoch).put("requestId", requestId.toString()).put("reason", reason);
  }

  /** The gateway ended the in-flight request itself; drop the agent's further events for it. */
  public static JsonObject discard(String agentId, long epoch, UUID requestId) {
    return base(DISCARD, agentId, epoch).put("requestId", requestId.toString());
  }

  public static JsonObject inject(String agentId, long epoch, UUID injectionId, String content, int priority, String source) {
    JsonObject c = base(INJECT, agentId, epoch).put("injectionId", injectionId.toString()).put("content", content).put("priority", priority);
    return source == null ? c : c.put("source", source);
  }

  public static JsonObject approve(String agentId, long epoch, UUID requestId, String toolId, boolean approved, boolean approveAll) {
    return base(APPROVE, agentId, epoch).put("requestId", requestId.toString()).put("toolId", toolId)
      .put("approved", approved).put("approveAll", approveAll);
  }

  /** A newer session registered the agent; the session with this epoch must shut down. */
  public static JsonObject supersede(String agentId, long epoch) {
    return base(SUPERSEDE, agentId, epoch);
  }

  /** The agent is Retiring: let its request in flight finish, then send it Shutdown and retire it. */
  public static JsonObject retire(String agentId, long epoch) {
    return base(RETIRE, agentId, epoch);
  }

  private static JsonObject base(String op, String agentId, long epoch) {
    return new JsonObject().put("op", op).put("agentId", agentId).put("epoch", epoch);
  }
}
