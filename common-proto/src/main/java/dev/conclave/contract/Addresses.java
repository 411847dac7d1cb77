package dev.conclave.contract;

/**
 * The catalogue of every event-bus address Conclave uses. No address string appears anywhere else.
 * Each entry documents who sends, who listens, and the message shape.
 *
 * <p>Addresses under {@code conclave.events.} are the ones dashboards may subscribe to over the
 * WebSocket bridge; everything else is internal.
 */
public final class Addresses {

  private Addresses() {
  }

  /**
   * Publish. A token was revoked on some node; every node adds it to its revocation list.
   * Body: the token id as a string (UUID).
   */
  public static final String AUTH_TOKEN_REVOKED = "conclave.auth.token-revoked";

  // ---- swarm coordinator -------------------------------------------------------------------

  /**
   * Publish, for dashboards. Every state change of a swarm task, agent, lease or message.
   * Body: a JSON object {@code {"kind": "task"|"agent"|"lease"|"message", "event": "<what happened>",
   * "id": "<entity id>", "at": "<ISO-8601>", "data": {...}}}; the coordinator documents each event.
   */
  public static final String SWARM_EVENTS = "conclave.events.swarm";

  // ---- gateway -----------------------------------------------------------------------------

  /**
   * Shared-data map (cluster-wide when clustered): agent id → presence entry of the session that
   * holds the agent's stream. Value: JSON {@code {"agentId", "principalId", "node", "epoch",
   * "name", "capabilities": [..], "features": [..], "metadata": "<AgentMetadata, protobuf, base64>",
   * "connectedAt"}}.
   */
  public static final String PRESENCE_MAP = "conclave.gateway.presence";

  /**
   * Shared-data map: gateway node id → JSON {@code {"vertxNodeId", "startedAt"}} for every gateway
   * node that is up. Survivors remove a node that left the cluster.
   */
  public static final String GATEWAY_NODES_MAP = "conclave.gateway.nodes";

  /**
   * Publish, for dashboards. An agent connected or disconnected somewhere in the cluster.
   * Body: JSON {@code {"agentId", "connected": true|false, "node", "epoch", "name", "capabilities",
   * "features", "workspaces", "at"}}.
   */
  public static final String PRESENCE_EVENTS = "conclave.events.presence";

  private static final String GATEWAY_NODE_PREFIX = "conclave.gateway.node.";
  private static final String CONVERSATION_PREFIX = "conclave.gateway.conversation.";

  /**
   * Request-reply, to the gateway node that holds an agent's stream. Body: JSON command
   * {@code {"op": "wake"|"cancel"|"discard"|"inject"|"approve"|"supersede", "agentId", "epoch", ...}};
   * reply: JSON {@code {"ok": true}} or a failure with the error code as message. Handlers are
   * idempotent; senders always set a timeout.
   */
  public static String gatewayNode(String nodeId) {
    return GATEWAY_NODE_PREFIX + nodeId;
  }

  /**
   * Publish. A conversation's ledger gained an event (after it was committed). Body: a buffer of
   * the event's sequence number (8 bytes, big-endian) followed by the ClientStreamEvent protobuf.
   * Subscribers that see a gap read the ledger; the ledger is the truth.
   */
  public static String conversation(String conversationKey) {
    return CONVERSATION_PREFIX + conversationKey;
  }
}
