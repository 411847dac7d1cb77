package dev.conclave.agent.examples;

import dev.conclave.agent.ClientTestBase;
import dev.conclave.agent.Feature;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.MessageResponse.EventCase;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the README's examples honest. */
class ReadmeExamplesTest extends ClientTestBase {

  @Test
  void theShoutingAgentShouts() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).features(Feature.TOKEN_USAGE).handler(new ShoutingAgent()));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "hello");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase)
      .containsExactly(EventCase.THINKING, EventCase.TEXT, EventCase.USAGE, EventCase.DONE);
    assertThat(rs.get(3).getDone().getFullResponse()).isEqualTo("HELLO");
  }

  @Test
  void theBackendExampleAsksBeforeItsToolAndAnswers() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler(new BackendHandler(vertx, new MyBackend())));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "what files are there?");
    assertThat(conn.nextResponse().getThinking()).isEqualTo("calling the model");
    conn.nextResponse();   // tool_state AWAITING_APPROVAL
    assertThat(conn.nextResponse().getToolApprovalRequest().getName()).isEqualTo("bash");
    conn.approve("tu-1", true, false);
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase)
      .containsExactly(EventCase.TEXT, EventCase.SESSION_INIT, EventCase.DONE);
    assertThat(rs.get(2).getDone().getFullResponse()).isEqualTo("Here is what I found: a.txt");
  }
}
