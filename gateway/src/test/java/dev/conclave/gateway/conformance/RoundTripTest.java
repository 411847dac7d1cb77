package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RoundTripTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void aClientMessageReachesTheAgentAndItsAnswerReachesTheClient() {
    String agentToken = gw.agentToken("smoke");
    try (RawAgent agent = gw.agent(agentToken)) {
      Welcome welcome = agent.register(RawAgent.registration("smoke-1", "token_usage"));
      assertThat(welcome.getAgentId()).isEqualTo("smoke-1");
      assertThat(welcome.getServerId()).isEqualTo(gw.node().runtime().config().nodeId());
      assertThat(welcome.getInstanceId()).hasSize(6);
      assertThat(welcome.getMcpToken()).isNotEmpty();

      Clients client = gw.admin();
      try (EventTap tap = client.stream("smoke-1", "0")) {
        String requestId = client.sendOk("smoke-1", "hello", "k1");
        ServerMessage work = agent.next();
        assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
        assertThat(work.getSendMessage().getContent()).isEqualTo("hello");

        agent.respond(requestId, MessageResponse.newBuilder().setText("hi "));
        agent.respond(requestId, MessageResponse.newBuilder().setText("there"));
        agent.respond(requestId, MessageResponse.newBuilder().setDone(Done.newBuilder()));

        List<ClientStreamEvent> events = tap.until(EventTap::terminal);
        assertThat(events.get(0).getEvent().getText()).isEqualTo("hello");
        assertThat(events.get(1).getText().getContent()).isEqualTo("hi ");
        assertThat(events.get(2).getText().getContent()).isEqualTo("there");
        assertThat(events.get(3).getDone().getFullResponse()).isEqualTo("hi there");
        assertThat(events).allSatisfy(e -> assertThat(e.getConversationKey()).isEqualTo("smoke-1"));
      }
    }
  }
}
