package dev.conclave.gateway.conformance;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Dashboards follow presence on one catalogue address: connects and disconnects, with what agents declared. */
class PresenceEventsTest {

  @Test
  void connectsAndDisconnectsArePublished() throws Exception {
    try (GatewayFixture gw = GatewayFixture.start()) {
      BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
      var bus = gw.node().runtime().vertx().eventBus();
      GatewayFixture.await(bus.<JsonObject>consumer(Addresses.PRESENCE_EVENTS, m -> events.add(m.body())).completion());
      try (RawAgent agent = gw.connect("watched", gw.agentToken("watched"), "injection")) {
        JsonObject up = events.poll(10, TimeUnit.SECONDS);
        assertThat(up).isNotNull();
        assertThat(up.getString("agentId")).isEqualTo("watched");
        assertThat(up.getBoolean("connected")).isTrue();
        assertThat(up.getString("node")).isEqualTo(gw.node().runtime().config().nodeId());
        assertThat(up.getJsonArray("capabilities").getList()).contains("chat");
        assertThat(up.getJsonArray("features").getList()).contains("injection");
        assertThat(up.getJsonArray("workspaces").getList()).contains("dev");
        agent.finish();
        agent.awaitEnd();
      }
      JsonObject down = events.poll(10, TimeUnit.SECONDS);
      assertThat(down).isNotNull();
      assertThat(down.getString("agentId")).isEqualTo("watched");
      assertThat(down.getBoolean("connected")).isFalse();
    }
  }
}
