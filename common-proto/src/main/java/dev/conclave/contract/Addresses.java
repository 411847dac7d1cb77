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

  /**
   * Publish. A principal was deleted or disabled on some node; every node ends its open streams.
   * Body: the principal id as a string (UUID).
   */
  public static final String AUTH_PRINCIPAL_REVOKED = "conclave.auth.principal-revoked";

  /**
   * Publish. A principal's row changed on some node (approved, disabled, deleted, its roles): every
   * node forgets what it remembered of it and reads it again at its next use.
   * Body: the principal id as a string (UUID).
   */
  public static final String AUTH_PRINCIPAL_CHANGED = "conclave.auth.principal-changed";

  /**
   * Shared-data map: the tokens that live as long as an agent's session (the MCP token of a Welcome).
   * Key: the token id (UUID string). Value: JSON {@code {"principalId", "agentId", "capabilities": [...],
   * "member"}}, where {@code member} is the cluster member holding the session. An entry is removed
   * when the session ends; one whose member left the cluster no longer counts; entries expire with
   * their token.
   */
  public static final String AUTH_SESSION_TOKENS_MAP = "conclave.auth.session-tokens";

  /**
   * Publish. Access may have been taken away on some node (a grant taken back, a binding created,
   * moved or deleted, a role removed, an agent's ownership changed); every node re-checks the open
   * followers it touches and ends those that lost access. Body: JSON {@code {"origin": <the
   * announcing node's LiveAccess id>, "principals": [<principal id>…], "conversations": [<conversation
   * key>…], "everything": bool}}.
   */
  public static final String ACCESS_CHANGED = "conclave.auth.access-changed";

  // ---- swarm coordinator -------------------------------------------------------------------

  /**
   * Publish, for dashboards. Every state change of a swarm task, agent, lease or message.
   * Body: a JSON object {@code {"kind": "task"|"agent"|"lease"|"message", "event": "<what happened>",
   * "id": "<entity id>", "at": "<ISO-8601>", "data": {...}}}; the coordinator documents each event.
   */
  public static final String SWARM_EVENTS = "conclave.events.swarm";

  // ---- gateway -----------------------------------------------------------------------------

  /**
   * Publish. An agent's lifecycle changed (seed 004). Two JSON bodies per transition, in this order:
   * {@code {"type": "lifecycle_event", "agent_id", "from", "to", "event", "reason", "at"}} (states in
   * seed 004's spelling, {@code Paused}; {@code event} is the seed's LifecycleEvent name such as
   * {@code Started}, {@code Paused}, {@code Resumed}, {@code Retired}) and
   * {@code {"type": "agent_status_changed", "agent_id", "status", "lifecycle", "connected", "at"}}.
   * Admins' dashboards follow it over the bridge.
   */
  public static final String LIFECYCLE_EVENTS = "conclave.events.lifecycle";

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
   * Body: JSON {@code {"agentId", "principalId", "connected": true|false, "node", "epoch", "name",
   * "capabilities", "features", "workspaces", "at"}}; dashboards get only the agents they may act on.
   */
  public static final String PRESENCE_EVENTS = "conclave.events.presence";

  /**
   * Request-reply, to any gateway node: what the pack host's MCP endpoint needs from the gateway.
   * Body: JSON {@code {"op": ..., ...}} with the ops and fields named in
   * {@code platform.packs.GatewayToolOps}; reply: a JSON object, or a failure.
   */
  public static final String GATEWAY_TOOLS = "conclave.gateway.tools";

  /**
   * Request-reply, to any gateway node: run one of the gateway's own tools ({@code ask_user},
   * {@code admin_*}) for a caller that is not an agent stream on a gateway (the pack host's MCP
   * endpoint). Body: {@code platform.packs.PackNodeOps#execute}; reply: {@code ToolOutcome} JSON.
   * Agent streams call these tools in their own gateway, with no message on the bus.
   */
  public static final String GATEWAY_TOOL_CALLS = "conclave.gateway.tool-calls";

  /**
   * Request-reply, to any gateway node: the coordinator hands a swarm task an agent claimed to the
   * gateway as a message to that agent, in the conversation {@code swarm:<taskId>}. Body and reply as
   * {@code platform.swarm.TaskConversationOps} defines; senders always set a timeout.
   */
  public static final String GATEWAY_TASK_CONVERSATIONS = "conclave.gateway.task-conversations";

  /**
   * Publish. A user answered an agent's {@code ask_user} question (after the answer was committed).
   * Body: JSON {@code {"questionId", "agentId", "selected": [..], "customText"?}}. The gateway node
   * whose ask_user call waits for that question completes it.
   */
  public static final String QUESTION_ANSWERED = "conclave.questions.answered";

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

  // ---- pack host ----------------------------------------------------------------------------

  /**
   * Shared-data map: tool name → the tool's registry entry. Value: JSON {@code {"name", "packId",
   * "builtin": bool, "node", "member", "connection", "principalId", "definition": "<ToolDefinition,
   * protobuf, base64>"}}; built-in tools have empty member and connection, and an empty node when
   * any pack-host node runs them, or node {@code "@gateway"} when any gateway node does. Putting a name first is what makes tool names unique across the cluster.
   */
  public static final String PACKS_TOOLS_MAP = "conclave.packs.tools";

  /**
   * Shared-data map: pack id → the live registration of that pack. Value: JSON {@code {"packId",
   * "version", "node", "member", "connection", "principalId", "tools": [names], "registeredAt"}}.
   */
  public static final String PACKS_MAP = "conclave.packs.packs";

  /** Shared-data map: pack-host node id → JSON {@code {"member", "startedAt"}} for every pack-host node that is up. */
  public static final String PACK_HOST_NODES_MAP = "conclave.packs.nodes";

  /**
   * Send, no reply: a call of one of the gateway's own tools has ended; a pack-host node records it in
   * {@code packs.tool_calls} beside every other call. Body: {@code platform.packs.PackNodeOps#callRecord}.
   * With no pack host in the cluster the record is dropped (the call itself never waits for it).
   */
  public static final String PACK_CALL_RECORDS = "conclave.packs.call-records";

  /** Shared-data map: MCP session id → JSON {@code {"principalId", "agentId", "protocolVersion", "createdAt"}}. */
  public static final String MCP_SESSIONS_MAP = "conclave.packs.mcp-sessions";

  /**
   * Publish, for dashboards. A pack registered or went away anywhere in the cluster. Body: JSON
   * {@code {"event": "registered"|"unregistered", "packId", "version", "node", "tools": [names],
   * "rejected": [names], "reason"?, "at"}}.
   */
  public static final String PACK_EVENTS = "conclave.events.packs";

  private static final String PACK_HOST_NODE_PREFIX = "conclave.packs.node.";

  /**
   * Request-reply, to the pack-host node that runs a tool call (the node holding the pack's stream,
   * or any pack-host node for a built-in). Body: JSON {@code {"op": "execute"|"tool-result"|"supersede",
   * ...}} as {@code platform.packs.PackNodeOps} defines; senders always set a timeout.
   */
  public static String packHostNode(String nodeId) {
    return PACK_HOST_NODE_PREFIX + nodeId;
  }

  private static final String DASHBOARD_CONVERSATION_PREFIX = "conclave.events.conversation.";

  /**
   * Publish, for dashboards, node-local: a conversation's committed events as JSON, fed on a node only
   * while a bridge socket there follows the conversation (relayed from {@link #conversation}). Body:
   * {@code {"seq": <ledger sequence number>, "event": <ClientStreamEvent in protobuf's JSON form>}}.
   */
  public static String dashboardConversation(String conversationKey) {
    return DASHBOARD_CONVERSATION_PREFIX + conversationKey;
  }

  /** The conversation key of a {@link #dashboardConversation} address, or null for any other address. */
  public static String conversationOfDashboardAddress(String address) {
    return address.startsWith(DASHBOARD_CONVERSATION_PREFIX) && address.length() > DASHBOARD_CONVERSATION_PREFIX.length()
      ? address.substring(DASHBOARD_CONVERSATION_PREFIX.length()) : null;
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
