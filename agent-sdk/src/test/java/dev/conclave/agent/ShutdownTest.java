package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class ShutdownTest extends ClientTestBase {

  private static final class GatedHandler implements AgentHandler {
    final Promise<Void> gate = Promise.promise();
    final List<String> shutdowns = new CopyOnWriteArrayList<>();

    @Override
    public Future<Void> handle(IncomingMessage message, ResponseStream response) {
      return response.text("working").compose(v -> gate.future()).compose(v -> response.done("finished " + message.requestId()));
    }

    @Override
    public void onShutdown(String reason) {
      shutdowns.add(reason);
    }
  }

  @Test
  void finishesTheCurrentRequestThenMovesToAnotherNode() {
    FakeGateway a = gateway("node-a");
    FakeGateway b = gateway("node-b");
    GatedHandler handler = new GatedHandler();
    RecordingListener events = new RecordingListener();
    started(builder(a.endpoint(), b.endpoint()).handler(handler).listener(events));
    AgentConn onA = a.nextConnection();

    onA.sendMessage("r1", "job");
    assertThat(onA.nextResponse().getText()).isEqualTo("working");
    onA.shutdown("node draining");

    Wait.until("shutdown hook ran", () -> handler.shutdowns.size() == 1);
    assertThat(handler.shutdowns).containsExactly("node draining");
    b.expectNoConnection(Duration.ofMillis(200));
    assertThat(onA.isEnded()).as("the stream stays open while the request runs").isFalse();

    handler.gate.complete();
    assertThat(onA.nextResponse().getDone().getFullResponse()).isEqualTo("finished r1");
    assertThat(onA.awaitEnd(FakeGateway.WAIT)).isEqualTo("end");

    AgentConn onB = b.nextConnection();
    assertThat(onB.register().getAgentId()).isEqualTo(AGENT_ID);
    Wait.until("re-registered", () -> events.registered.size() == 2);
    assertThat(events.disconnects).singleElement().satisfies(d -> {
      assertThat(d.shutdownReason()).contains("node draining");
      assertThat(d.cause()).isEmpty();
      assertThat(d.willReconnect()).isTrue();
    });
  }

  @Test
  void anIdleAgentLeavesAtOnce() {
    FakeGateway a = gateway("node-a");
    FakeGateway b = gateway("node-b");
    RecordingListener events = new RecordingListener();
    started(builder(a.endpoint(), b.endpoint()).listener(events));
    AgentConn onA = a.nextConnection();

    onA.shutdown("rolling update");

    assertThat(onA.awaitEnd(FakeGateway.WAIT)).isEqualTo("end");
    b.nextConnection();
    Wait.until("re-registered on node-b", () -> events.registered.size() == 2);
    assertThat(events.registered.get(1).serverId()).isEqualTo("node-b");
  }

  @Test
  void aGatewayThatKeepsTheHalfClosedStreamOpenIsResetAfterTheGrace() {
    FakeGateway a = gateway("node-a");
    FakeGateway b = gateway("node-b");
    started(builder(a.endpoint(), b.endpoint()).closeGrace(Duration.ofMillis(200)));
    AgentConn onA = a.nextConnection();
    onA.ignoreAgentClose();

    onA.shutdown("draining");

    b.nextConnection();
    assertThat(onA.awaitEnd(FakeGateway.WAIT)).as("the half-closed stream was reset").isNotEmpty();
  }

  @Test
  void underPolicyStopTheClientStopsAfterFinishingItsWork() {
    FakeGateway a = gateway("node-a");
    FakeGateway b = gateway("node-b");
    GatedHandler handler = new GatedHandler();
    RecordingListener events = new RecordingListener();
    AgentClient client = started(builder(a.endpoint(), b.endpoint()).handler(handler).listener(events)
      .shutdownPolicy(ShutdownPolicy.STOP));
    AgentConn onA = a.nextConnection();

    onA.sendMessage("r1", "job");
    onA.nextResponse();
    onA.shutdown("decommissioned");
    assertThat(client.stopped().isComplete()).isFalse();
    handler.gate.complete();

    assertThat(onA.nextResponse().getDone().getFullResponse()).isEqualTo("finished r1");
    Wait.result(client.stopped());
    assertThat(events.disconnects).singleElement().satisfies(d -> assertThat(d.willReconnect()).isFalse());
    assertThat(events.stops).containsExactly("null");
    b.expectNoConnection(Duration.ofMillis(300));
    assertThat(client.session()).isEmpty();
  }
}
