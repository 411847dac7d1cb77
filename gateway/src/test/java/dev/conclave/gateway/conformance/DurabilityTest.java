package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What survives a gateway restart: queued requests, the ledger, and what was in flight ends cleanly. */
class DurabilityTest {

  @Test
  void queuedRequestsAreDeliveredInOrderAfterAGatewayRestart() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Path data = Files.createTempDirectory("conclave-restart");
    String agentToken;
    String adminToken;
    List<String> queued = new ArrayList<>();
    String inFlight;
    try (GatewayFixture first = GatewayFixture.start(TestNode.builder().database(db).dataDir(data))) {
      agentToken = first.agentToken("durable");
      adminToken = first.node().adminToken();
      try (RawAgent agent = first.connect("durable", agentToken)) {
        inFlight = first.admin().sendOk("durable", "in flight", "durable-0");
        for (int i = 1; i <= 4; i++) {
          queued.add(first.admin().sendOk("durable", "queued " + i, "durable-" + i));
        }
        assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(inFlight);
        // the node stops while the request is in flight and four wait
      }
    }
    try (GatewayFixture second = GatewayFixture.start(TestNode.builder().database(db).dataDir(data))) {
      try (EventTap history = second.clients(adminToken).stream("durable", "0")) {
        List<ClientStreamEvent> events = history.until(e -> e.hasError());
        assertThat(events.get(events.size() - 1).getError().getRecoverable()).as("the in-flight request ended, recoverable").isTrue();
      }
      try (RawAgent agent = second.connect("durable", agentToken)) {
        for (String id : queued) {
          ServerMessage m = agent.next();
          assertThat(m.getSendMessage().getRequestId()).isEqualTo(id);
          agent.respond(id, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        }
        assertThat(agent.poll(300)).isNull();
      }
    }
  }
}
