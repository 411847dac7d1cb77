package dev.conclave.gateway.conformance;

import ch.qos.logback.classic.Level;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.errors.BadInputLogBudget;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.proto.coven.AgentMessage;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an agent writes into RegisterAgent reaches the node's log and its tables: a rejected
 * {@code agent_id} cannot forge log lines, and {@code protocol_features} are bounded and plain
 * (issue 40, finding 7).
 */
class UntrustedRegistrationTextTest {

  private static final String FORGED = "10:00:00.000 ERROR FORGED-LINE";

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
  void aRejectedAgentIdCannotForgeALogLine() {
    try (LogCapture log = LogCapture.atLeast(Level.DEBUG)) {
      for (String id : List.of("x\n" + FORGED, "x\r\n" + FORGED, "x\u0000\r" + FORGED, "x\u2028" + FORGED, "evil\u202Egnp.exe")) {
        try (RawAgent agent = gw.agent(gw.agentToken("forger"))) {
          // the bad-input log's budget is the process's: lines earlier tests wrote this second must not hide these
          BadInputLogBudget.reset();
          agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration(id)).build());
          assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
        }
      }
      String text = log.rendered();
      assertThat(text).as("the refusals were logged").contains("FORGED-LINE");
      assertThat(text.lines()).noneMatch(line -> line.startsWith(FORGED) || line.startsWith("\u0000") || line.contains("\u2028"));
      assertThat(text).doesNotContain("\r").doesNotContain("\u0000").doesNotContain("\u202E");
      assertThat(text).contains("x\\n" + FORGED).contains("evil\\u202Egnp.exe");
    }
  }

  @Test
  void protocolFeaturesAreBoundedAndPlain() {
    record Case(List<String> features, String why) {
    }
    List<String> many = new ArrayList<>(Collections.nCopies(33, "token_usage"));
    for (Case c : List.of(
      new Case(List.of("token_usage\n" + FORGED), "letters, digits"),
      new Case(List.of("tool_states", "a\u0000b"), "letters, digits"),
      new Case(List.of("evil\u202Eature"), "letters, digits"),
      new Case(List.of(""), "1 to 64"),
      new Case(List.of("f".repeat(65)), "1 to 64"),
      new Case(many, "at most 32"))) {
      try (RawAgent agent = gw.agent(gw.agentToken("featured"))) {
        agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("featured").clearProtocolFeatures()
          .addAllProtocolFeatures(c.features())).build());
        RawAgent.End end = agent.awaitEnd();
        assertThat(end.status()).as(c.toString()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
        assertThat(end.message()).as(c.toString()).contains("protocol_features").contains(c.why());
      }
    }
    // the features coven agents send, and names of features yet to come, pass
    try (RawAgent agent = gw.agent(gw.agentToken("featured"))) {
      agent.register(RawAgent.registration("featured", "token_usage", "tool_states", "injection", "cancellation", "future.feature-2"));
    }
  }
}
