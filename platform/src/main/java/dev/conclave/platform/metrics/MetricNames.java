package dev.conclave.platform.metrics;

/**
 * Every metric name Conclave registers, defined once, in one style: Prometheus's
 * {@code conclave_<area>_<thing>[_<unit>]}, lower case with underscores. Vert.x and JVM metrics keep
 * their own names.
 *
 * <p>A name here is the Micrometer name, which the Prometheus endpoint prints unchanged except for
 * the suffixes Micrometer adds by meter type: {@code _total} for a counter, {@code _seconds} (then
 * {@code _count}, {@code _sum}, {@code _bucket}) for a timer whose name does not already end in it.
 * So a counter is named without {@code _total}, and a timer ends in {@code _seconds}.
 *
 * <p>To add a metric: add a constant here with a doc comment that says what it counts and its tags,
 * then register it with that constant ({@code registry.counter(MetricNames.X, …)},
 * {@code Counter.builder(MetricNames.X)}). {@code MetricCatalogueTest} fails on a name in another
 * style and on a metric registered with a string literal anywhere else.
 */
public final class MetricNames {

  private MetricNames() {
  }

  /** Rows retention deleted; tag {@code kind} (events, requests, tasks, task-history, tool-calls, tokens). */
  public static final String RETENTION_ROWS_DELETED = "conclave_retention_rows_deleted";
  /** Retention batches run (one statement and transaction each); tag {@code kind}, the rule's kind. */
  public static final String RETENTION_BATCHES = "conclave_retention_batches";
  /** Retention batches rolled back because their rows could not be written to the archive; tag {@code kind}. */
  public static final String RETENTION_ARCHIVE_FAILURES = "conclave_retention_archive_failures";
  /** Retention runs skipped because another node was running the same worker; tag {@code worker}. */
  public static final String RETENTION_RUNS_SKIPPED = "conclave_retention_runs_skipped";
  /** Agent events dropped instead of applied; tag {@code reason}. */
  public static final String GATEWAY_EVENTS_DROPPED = "conclave_gateway_events_dropped";
  /** Agent and gateway events appended to conversation ledgers. */
  public static final String GATEWAY_EVENTS_PERSISTED = "conclave_gateway_events_persisted";
  /** Requests handed to agents. */
  public static final String GATEWAY_REQUESTS_DISPATCHED = "conclave_gateway_requests_dispatched";
  /** Agent streams open on this node (a gauge). */
  public static final String GATEWAY_AGENTS_CONNECTED = "conclave_gateway_agents_connected";
  /** Transactions the ledger writer committed (each carries one or more writes: group commit). */
  public static final String GATEWAY_LEDGER_TRANSACTIONS = "conclave_gateway_ledger_transactions";
  /** Writes the ledger writer committed; divided by the transactions, how many shared each commit. */
  public static final String GATEWAY_LEDGER_WRITES = "conclave_gateway_ledger_writes";
  /** Ledger writes from their arrival at the writer (queue wait included) to commit and publication (a timer, with buckets). */
  public static final String GATEWAY_LEDGER_WRITE_DURATION = "conclave_gateway_ledger_write_duration_seconds";
  /** Ledger writes waiting for their lane's next transaction (a gauge). */
  public static final String GATEWAY_LEDGER_QUEUED = "conclave_gateway_ledger_queued";
  /**
   * Requests waiting for their agent (a gauge): sent and queued in {@code gateway.requests}, not yet
   * taken by an agent session, in the whole cluster (every gateway node reports the same number, read
   * from PostgreSQL every 15 s; NaN while the reads fail).
   */
  public static final String GATEWAY_REQUESTS_WAITING = "conclave_gateway_requests_waiting";
  /** How long the oldest request waiting for its agent has waited, in seconds, 0 when none waits (a gauge, read with {@link #GATEWAY_REQUESTS_WAITING}). */
  public static final String GATEWAY_REQUESTS_OLDEST_WAITING = "conclave_gateway_requests_oldest_waiting_seconds";
  /** Agent registrations accepted (a counter): its rate against the agents connected shows agents flapping. */
  public static final String GATEWAY_AGENT_REGISTRATIONS = "conclave_gateway_agent_registrations";
  /** Agent registrations waiting for their turn at this node's edge (a gauge; at most CONCLAVE_AGENT_REGISTRATIONS_QUEUED). */
  public static final String GATEWAY_REGISTRATIONS_WAITING = "conclave_gateway_registrations_waiting";
  /** How long agent registrations waited for their turn at this node's edge (a timer). */
  public static final String GATEWAY_REGISTRATION_WAIT = "conclave_gateway_registration_wait_seconds";
  /** Agent registrations refused because the node's registration queue was full (a counter; the agent tries another node). */
  public static final String GATEWAY_REGISTRATIONS_REFUSED = "conclave_gateway_registrations_refused";
  /** 1 when this node takes traffic (started, not draining), else 0 (a gauge). */
  public static final String NODE_READY = "conclave_node_ready";
  /** 1 when the readiness check named by tag {@code check} (database, verticles, cluster) passed at its last periodic run, else 0. */
  public static final String NODE_CHECK_UP = "conclave_node_check_up";
  /** Members of the cluster as this node sees them, itself included (a gauge; 1 when standalone). */
  public static final String CLUSTER_MEMBERS = "conclave_cluster_members";
  /** Live subscribers that fell behind and switched to reading the ledger. */
  public static final String GATEWAY_SUBSCRIBER_CATCHUPS = "conclave_gateway_subscribers_catchups";

  /** Swarm protocol requests; tags {@code operation} and {@code outcome} (ok or the error code). */
  public static final String SWARM_REQUESTS = "conclave_swarm_requests";
  /** Protocol requests sent to PostgreSQL in one statement (a distribution: batching at work). */
  public static final String SWARM_BATCH_SIZE = "conclave_swarm_batch_size";
  /** Items the swarm's background jobs changed; tag {@code job}. */
  public static final String SWARM_JOB_CHANGES = "conclave_swarm_job_changes";

  /** Pack tool calls run on this node; tags {@code outcome} (ok, tool_error, timeout, …) and {@code origin}. */
  public static final String PACKS_TOOL_CALLS = "conclave_packs_tool_calls";
  /** Time from a call's arrival on the running node to its outcome (a timer); tag {@code kind} (builtin or pack). */
  public static final String PACKS_TOOL_CALL_DURATION = "conclave_packs_tool_call_duration_seconds";
  /** Tool calls that could not be written to packs.tool_calls (queue full, database down too long). */
  public static final String PACKS_TOOL_CALLS_UNRECORDED = "conclave_packs_tool_calls_unrecorded";
  /** Pack results that matched no waiting call (late, duplicate or unknown); tag {@code reason}. */
  public static final String PACKS_RESULTS_DROPPED = "conclave_packs_results_dropped";
  /** Pack streams open on this node (a gauge). */
  public static final String PACKS_CONNECTED = "conclave_packs_connected";
  /** MCP JSON-RPC requests; tag {@code method}. */
  public static final String PACKS_MCP_REQUESTS = "conclave_packs_mcp_requests";
  /** Failed authentications (bad, missing or refused credentials), each one; tag {@code code}: the refusal's code. */
  public static final String AUTH_FAILURES = "conclave_auth_failures";
  /** Audit entries that could not be written (queue full, database down too long). */
  public static final String AUDIT_ENTRIES_LOST = "conclave_audit_entries_lost";

  /** Bridge subscriptions refused (REGISTER frames); tag {@code reason}: unauthenticated, forbidden, unknown_address, invalid, too_many_connections. */
  public static final String BRIDGE_REFUSALS = "conclave_bridge_refusals";
  /** Bridge sockets the node closed; tag {@code reason}: slow_consumer, revoked, socket_error, unauthenticated, too_many_connections. */
  public static final String BRIDGE_DROPPED_SOCKETS = "conclave_bridge_dropped_sockets";
  /** Bridge messages not delivered because the rule for who may see them could not be checked. */
  public static final String BRIDGE_WITHHELD = "conclave_bridge_withheld";
  /** Bridge subscriptions accepted. */
  public static final String BRIDGE_SUBSCRIPTIONS = "conclave_bridge_subscriptions";
  /** Open followers (StreamEvents, bridge subscriptions, session sockets) ended because their caller lost access to what they followed. */
  public static final String ACCESS_FOLLOWERS_ENDED = "conclave_access_followers_ended";
  /** Re-checks of open followers' access that failed (the database unreachable); the next change or periodic re-check tries again. */
  public static final String ACCESS_RECHECKS_FAILED = "conclave_access_rechecks_failed";
  /** Connections the gRPC edge closed; tag {@code reason}: unauthenticated. */
  public static final String EDGE_CONNECTIONS_CLOSED = "conclave_edge_connections_closed";
  /** gRPC calls refused for a principal's limits; tag {@code reason}: calls_per_principal, connections_per_principal. */
  public static final String EDGE_CALLS_REFUSED = "conclave_edge_calls_refused";
}
