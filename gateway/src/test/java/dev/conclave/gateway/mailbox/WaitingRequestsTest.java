package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.StoreFixture;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requests waiting for their agent as gauges (issue 44: an alert on the queue's age): a message
 * for an agent that is not connected counts as waiting and ages; once the agent takes it, nothing
 * waits. Read from PostgreSQL on a timer, here every 200 ms instead of every 15 s.
 */
class WaitingRequestsTest {

  private static final Duration READ_EVERY = Duration.ofMillis(200);
  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(new GatewayRole(READ_EVERY));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void aMessageForAnAgentNotConnectedWaitsAndAgesUntilTheAgentTakesIt() {
    MeterRegistry metrics = gw.node().runtime().context().metrics();
    String token = gw.agentToken("absent");
    try (RawAgent agent = gw.connect("absent", token)) {
      agent.finish();
      agent.awaitEnd();
    }
    awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, v -> v == 0, "nothing waits yet");
    assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING)).isZero();

    String id = gw.admin().sendOk("absent", "are you there?", "absent-1");
    awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, v -> v == 1, "the message waits");
    // it ages from one read to the next: half a second is two reads and more
    awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING, v -> v >= 0.5, "the oldest waiting request ages");
    assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING)).isEqualTo(1);

    try (RawAgent agent = gw.connect("absent", token)) {
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(id);
      // in flight now, no longer waiting
      awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, v -> v == 0, "the taken request no longer waits");
      assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING)).isZero();
      agent.respond(id, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
    }
  }

  static double gauge(MeterRegistry metrics, String name) {
    Gauge g = metrics.find(name).gauge();
    assertThat(g).as("gauge " + name + " registered").isNotNull();
    return g.value();
  }

  /** Waits (up to 20 s, generous for a loaded machine) until gauge {@code name} satisfies {@code until}. */
  static void awaitGauge(MeterRegistry metrics, String name, DoublePredicate until, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    double value = gauge(metrics, name);
    while (!until.test(value) && System.nanoTime() < deadline) {
      sleep(50);
      value = gauge(metrics, name);
    }
    assertThat(until.test(value)).as(what + ": " + name + " = " + value).isTrue();
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
