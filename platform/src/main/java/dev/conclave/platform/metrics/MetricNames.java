package dev.conclave.platform.metrics;

/** Every metric name Conclave registers, defined once. Vert.x and JVM metrics keep their own names. */
public final class MetricNames {

  private MetricNames() {
  }

  public static final String AUTH_REJECTED = "conclave_auth_rejected";

  /** Agent events dropped instead of applied; tag {@code reason}. */
  public static final String GATEWAY_EVENTS_DROPPED = "conclave.gateway.events.dropped";
  /** Agent and gateway events appended to conversation ledgers. */
  public static final String GATEWAY_EVENTS_PERSISTED = "conclave.gateway.events.persisted";
  /** Requests handed to agents. */
  public static final String GATEWAY_REQUESTS_DISPATCHED = "conclave.gateway.requests.dispatched";
  /** Agent streams open on this node. */
  public static final String GATEWAY_AGENTS_CONNECTED = "conclave.gateway.agents.connected";
  /** Live subscribers that fell behind and switched to reading the ledger. */
  public static final String GATEWAY_SUBSCRIBER_CATCHUPS = "conclave.gateway.subscribers.catchups";

  /** Pack tool calls run on this node; tags {@code outcome} (ok, tool_error, timeout, …) and {@code origin}. */
  public static final String PACKS_TOOL_CALLS = "conclave.packs.tool.calls";
  /** Time from a call's arrival on the running node to its outcome; tag {@code kind} (builtin or pack). */
  public static final String PACKS_TOOL_CALL_DURATION = "conclave.packs.tool.call.duration";
  /** Tool calls that could not be written to packs.tool_calls (queue full, database down too long). */
  public static final String PACKS_TOOL_CALLS_UNRECORDED = "conclave.packs.tool.calls.unrecorded";
  /** Pack results that matched no waiting call (late, duplicate or unknown); tag {@code reason}. */
  public static final String PACKS_RESULTS_DROPPED = "conclave.packs.results.dropped";
  /** Pack streams open on this node. */
  public static final String PACKS_CONNECTED = "conclave.packs.connected";
  /** MCP JSON-RPC requests; tag {@code method}. */
  public static final String PACKS_MCP_REQUESTS = "conclave.packs.mcp.requests";
  /** Audit entries that could not be written (queue full, database down too long). */
  public static final String AUDIT_ENTRIES_LOST = "conclave.audit.entries.lost";

  /** Bridge subscriptions refused (REGISTER frames); tag {@code reason}: unauthenticated, forbidden, unknown_address, invalid, too_many_connections. */
  public static final String BRIDGE_REFUSALS = "conclave.bridge.refusals";
  /** Bridge sockets the node closed; tag {@code reason}: slow_consumer, revoked, socket_error, unauthenticated, too_many_connections. */
  public static final String BRIDGE_DROPPED_SOCKETS = "conclave.bridge.dropped.sockets";
  /** Bridge messages not delivered because the rule for who may see them could not be checked. */
  public static final String BRIDGE_WITHHELD = "conclave.bridge.withheld";
  /** Bridge subscriptions accepted. */
  public static final String BRIDGE_SUBSCRIPTIONS = "conclave.bridge.subscriptions";
  /** Connections the gRPC edge closed; tag {@code reason}: unauthenticated. */
  public static final String EDGE_CONNECTIONS_CLOSED = "conclave.edge.connections.closed";
  /** gRPC calls refused for a principal's limits; tag {@code reason}: calls_per_principal, connections_per_principal. */
  public static final String EDGE_CALLS_REFUSED = "conclave.edge.calls.refused";
}
