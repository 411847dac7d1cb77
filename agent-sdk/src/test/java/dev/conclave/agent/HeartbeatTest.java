package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.AgentMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HeartbeatTest extends ClientTestBase {

  private static List<Long> heartbeats(AgentConn conn) {
    return conn.received().stream().filter(AgentMessage::hasHeartbeat).map(m -> m.getHeartbeat().getTimestampMs()).toList();
  }

  @Test
  void heartbeatsFlowWhileRegisteredAndStopWithTheClient() {
    FakeGateway gw = gateway("node-a");
    long before = System.currentTimeMillis();
    AgentClient client = started(builder(gw.endpoint()).heartbeatInterval(Duration.ofMillis(50)));
    AgentConn conn = gw.nextConnection();

    Wait.until("five heartbeats", () -> heartbeats(conn).size() >= 5);
    List<Long> beats = heartbeats(conn);
    assertThat(beats).isSorted();
    assertThat(beats).allSatisfy(ts -> assertThat(ts).isBetween(before, System.currentTimeMillis()));
    assertThat(conn.received().get(0).hasRegister()).as("registration comes first").isTrue();

    Wait.result(client.stop());
    // once the stream has ended at the gateway nothing more can arrive on it (a heartbeat sent just
    // before the stop may still be on its way when stop() completes)
    assertThat(conn.awaitEnd(FakeGateway.WAIT)).isEqualTo("end");
    int afterStop = heartbeats(conn).size();
    gw.expectNoConnection(Duration.ofMillis(200));
    assertThat(heartbeats(conn)).hasSize(afterStop);
  }

  @Test
  void noHeartbeatBeforeTheWelcome() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> { });
    client(builder(gw.endpoint()).heartbeatInterval(Duration.ofMillis(20))).start();
    AgentConn conn = gw.nextConnection();
    Wait.sleep(200);
    assertThat(heartbeats(conn)).isEmpty();
  }
}
