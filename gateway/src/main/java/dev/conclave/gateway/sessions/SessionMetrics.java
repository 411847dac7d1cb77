package dev.conclave.gateway.sessions;

import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Counters the agent sessions keep, named in {@link MetricNames}. */
public final class SessionMetrics {

  private static final Logger LOG = LoggerFactory.getLogger(SessionMetrics.class);

  /** Why an agent event was dropped instead of applied. */
  public enum DropReason {
    UNKNOWN_REQUEST("unknown_request"),
    FINISHED_REQUEST("finished_request"),
    CANCELLED_REQUEST("cancelled_request"),
    UNKNOWN_EVENT("unknown_event"),
    UNKNOWN_MESSAGE("unknown_message"),
    /** An ExecutePackTool reused the request_id of a call still running; the first call's result answers it. */
    DUPLICATE_TOOL_CALL("duplicate_tool_call");

    final String tag;

    DropReason(String tag) {
      this.tag = tag;
    }
  }

  private final MeterRegistry registry;
  private final Counter persisted;
  private final Counter dispatched;
  private final Counter registered;

  public SessionMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.persisted = registry.counter(MetricNames.GATEWAY_EVENTS_PERSISTED);
    this.dispatched = registry.counter(MetricNames.GATEWAY_REQUESTS_DISPATCHED);
    this.registered = registry.counter(MetricNames.GATEWAY_AGENT_REGISTRATIONS);
  }

  public void dropped(DropReason reason, String agentId, String requestId) {
    registry.counter(MetricNames.GATEWAY_EVENTS_DROPPED, "reason", reason.tag).increment();
    LOG.info("agent event dropped reason={} agent={} request={}", reason.tag, agentId, requestId);
  }

  public void persisted(int n) {
    persisted.increment(n);
  }

  public void dispatched() {
    dispatched.increment();
  }

  /** An agent's registration was accepted and welcomed (a reconnect counts again: flapping shows). */
  public void registered() {
    registered.increment();
  }
}
