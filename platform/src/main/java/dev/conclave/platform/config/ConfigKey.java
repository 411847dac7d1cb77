package dev.conclave.platform.config;

/**
 * Every environment variable the platform kernel reads, with its default as documented.
 * The first ten are the configuration contract (ARCHITECTURE.md); their names never change.
 * Service modules own their own keys (for example {@code GatewaySettings}).
 */
public enum ConfigKey {
  ROLES("CONCLAVE_ROLES", "gateway,coordinator,pack-host", "which services this node runs"),
  NODE_ID("CONCLAVE_NODE_ID", "host name plus a short random suffix", "this node's name in logs, Welcome.server_id and presence"),
  GRPC_PORT("CONCLAVE_GRPC_PORT", "50051", "gRPC port: every service in coven.proto"),
  HTTP_PORT("CONCLAVE_HTTP_PORT", "8080", "HTTP port: REST APIs, event-bus bridge, dashboard, MCP, health, metrics"),
  DATA_DIR("CONCLAVE_DATA_DIR", "./data", "local data, including the embedded PostgreSQL cluster"),
  PG_URL("CONCLAVE_PG_URL", "unset", "external PostgreSQL (postgresql://user:pass@host:port/db); unset starts embedded PostgreSQL in the data dir"),
  CLUSTER_MEMBERS("CONCLAVE_CLUSTER_MEMBERS", "unset", "comma-separated host:port Hazelcast members (TCP-IP join); when set, the node runs clustered"),
  CLUSTER_K8S_DNS("CONCLAVE_CLUSTER_K8S_DNS", "unset", "headless Service DNS name for Hazelcast Kubernetes DNS discovery; when set, the node runs clustered"),
  CLUSTER_HOST("CONCLAVE_CLUSTER_HOST", "detected", "this member's bind and advertised address"),
  CLUSTER_PORT("CONCLAVE_CLUSTER_PORT", "5701", "this member's Hazelcast port"),
  AUTH_SECRET("CONCLAVE_AUTH_SECRET", "unset", "key for signing tokens (at least 32 characters); unset generates one into the data dir"),

  // Additions beyond the contract.
  BIND_HOST("CONCLAVE_BIND_HOST", "0.0.0.0", "address the gRPC and HTTP servers listen on"),
  PUBLIC_HOST("CONCLAVE_PUBLIC_HOST", "the cluster host, else localhost", "host name agents and browsers use to reach this node, in URLs the node hands out"),
  CLUSTER_NAME("CONCLAVE_CLUSTER_NAME", "conclave", "Hazelcast cluster name; nodes only join members with the same name"),
  EVENTBUS_PORT("CONCLAVE_EVENTBUS_PORT", "5711", "fixed port of the clustered event bus"),
  PG_POOL_SIZE("CONCLAVE_PG_POOL_SIZE", "16", "connections in the node's one shared PostgreSQL pool"),
  PG_POOL_WAIT_QUEUE("CONCLAVE_PG_POOL_WAIT_QUEUE", "4096", "requests that may wait for a pooled connection before new ones fail fast"),
  EDGE_INSTANCES("CONCLAVE_EDGE_INSTANCES", "number of cores", "server verticle instances sharing the gRPC and HTTP ports"),
  SHUTDOWN_GRACE("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "10", "how long a stopping node lets in-flight work finish"),
  MAX_MESSAGE_BYTES("CONCLAVE_MAX_MESSAGE_BYTES", "4194304", "largest gRPC message accepted, after decompression; larger ones get RESOURCE_EXHAUSTED"),
  MAX_EVENT_BYTES("CONCLAVE_MAX_EVENT_BYTES", "1048576", "largest message or agent event stored in a conversation's history (at most 2097152, so a page of history fits in what gRPC clients accept); larger ones get RESOURCE_EXHAUSTED"),
  UNAUTHENTICATED_TIMEOUT("CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS", "10", "a gRPC connection on which no call has authenticated, or an event-bus bridge socket on which no caller has, within this time is closed"),
  HTTP_IDLE_TIMEOUT("CONCLAVE_HTTP_IDLE_SECONDS", "60", "an HTTP connection (REST, console, event-bus bridge) with no traffic for this long is closed; the bridge's pings keep dashboards open"),
  MAX_CALLS_PER_PRINCIPAL("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", "10000", "gRPC calls one principal may have in progress on one node; more get RESOURCE_EXHAUSTED"),
  MAX_CONNECTIONS_PER_PRINCIPAL("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", "1000", "connections one principal may hold per node: gRPC connections with a call of its in progress and its WebSockets (sessions, event-bus bridge), together; more are refused"),
  SSH_UNKNOWN_KEYS("CONCLAVE_SSH_UNKNOWN_KEYS", "pending", "what an SSH-signed agent call with an unknown key gets: reject (refused), pending (a pending agent principal an admin must approve) or approve (an approved agent principal at once)"),
  AUDIT_RETENTION("CONCLAVE_AUDIT_RETENTION_DAYS", "90", "how long audit log entries are kept"),
  SECRETS_KEY("CONCLAVE_SECRETS_KEY", "unset", "key that agents' secrets are encrypted with (base64 of 32 bytes); required when clustered; unset generates one into the data dir");

  private final String env;
  private final String documentedDefault;
  private final String meaning;

  ConfigKey(String env, String documentedDefault, String meaning) {
    this.env = env;
    this.documentedDefault = documentedDefault;
    this.meaning = meaning;
  }

  public String env() {
    return env;
  }

  public String documentedDefault() {
    return documentedDefault;
  }

  public String meaning() {
    return meaning;
  }
}
