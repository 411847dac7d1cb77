package dev.conclave.gateway.sessions;

import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
  private final Counter refused;
  private final Timer registrationWait;

  public SessionMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.persisted = registry.counter(MetricNames.GATEWAY_EVENTS_PERSISTED);
    this.dispatched = registry.counter(MetricNames.GATEWAY_REQUESTS_DISPATCHED);
    this.registered = registry.counter(MetricNames.GATEWAY_AGENT_REGISTRATIONS);
    this.refused = registry.counter(MetricNames.GATEWAY_REGISTRATIONS_REFUSED);
    this.registrationWait = registry.timer(MetricNames.GATEWAY_REGISTRATION_WAIT);
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

  /** Reports the registrations waiting for their turn at the edge ({@link RegistrationGate}). */
  void registrationsWaiting(Supplier<Number> waiting) {
    Gauge.builder(MetricNames.GATEWAY_REGISTRATIONS_WAITING, waiting).register(registry);
  }

  /** A registration's wait for its turn at the edge ended (it runs now, or its stream had gone). */
  void registrationWaited(long nanos) {
    registrationWait.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** A registration held its place at the edge past the longest turn and gave it up (it went on). */
  void registrationOverran(Duration turn) {
    LOG.warn("agent registration: a registration held its turn for {} ms; its place goes to the next", turn.toMillis());
  }

  /** A registration was refused: the edge's queue was full. */
  void registrationRefused() {
    refused.increment();
  }

  /** An agent's registration was accepted and welcomed (a reconnect counts again: flapping shows). */
  public void registered() {
    registered.increment();
  }
}
