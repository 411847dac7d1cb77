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
}
