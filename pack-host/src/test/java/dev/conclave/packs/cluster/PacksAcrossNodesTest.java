package dev.conclave.packs.cluster;

import dev.conclave.gateway.support.EventTap;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.packs.support.TwoNodes;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackWelcome;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The registry and dispatch are cluster-wide: a pack on one node serves agents on the other. */
class PacksAcrossNodesTest {

  private static TwoNodes nodes;

  @BeforeAll
  static void start() {
    nodes = TwoNodes.start();
  }

  @AfterAll
  static void stop() {
    nodes.close();
  }

  @Test
  void aPackOnOneNodeServesAnAgentOnTheOther() {
    try (RawPack pack = nodes.a().registerPack(nodes.a().packToken("remote"), RawPack.manifest("remote", RawPack.tool("remote_tool")));
         PackHost.ToolAgent agent = nodes.b().agent("remote-user")) {
      assertThat(agent.toolNames()).contains("remote_tool");
      agent.call("r1", "remote_tool", "{\"text\":\"x\"}");
      ExecuteToolRequest call = pack.nextCall();
      assertThat(pack.answer(call.getRequestId(), "{\"from\":\"a\"}").status()).isEqualTo(GrpcStatus.OK);
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"from\":\"a\"}");
    }
  }

  @Test
  void aResultSentToTheOtherNodeReachesTheCall() {
    String token = nodes.a().packToken("forward");
    try (RawPack pack = nodes.a().registerPack(token, RawPack.manifest("forward", RawPack.tool("forward_tool")));
         PackHost.ToolAgent agent = nodes.a().agent("forward-user")) {
      agent.call("f1", "forward_tool", "{}");
      ExecuteToolRequest call = pack.nextCall();
      var outcome = nodes.b().gw().grpc().unary(dev.conclave.proto.coven.PackServiceGrpcClient.ToolResult,
        dev.conclave.proto.coven.ExecuteToolResponse.newBuilder().setRequestId(call.getRequestId()).setOutputJson("{\"via\":\"b\"}").build(),
        dev.conclave.platform.testing.GrpcCalls.bearer(token));
      assertThat(outcome.status()).isEqualTo(GrpcStatus.OK);
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"via\":\"b\"}");
    }
  }

  @Test
  void toolNamesAreUniqueAcrossNodes() {
    try (RawPack first = nodes.a().registerPack(nodes.a().packToken("uniq-a"), RawPack.manifest("uniq-a", RawPack.tool("uniq_shared"), RawPack.tool("uniq_a")));
         RawPack second = nodes.b().registerPack(nodes.b().packToken("uniq-b"), RawPack.manifest("uniq-b", RawPack.tool("uniq_shared"), RawPack.tool("uniq_b")))) {
      PackWelcome welcome = second.welcome();
      assertThat(welcome.getRejectedToolsList()).containsExactly("uniq_shared");
      try (PackHost.ToolAgent agent = nodes.b().agent("uniq-user")) {
        agent.call("u1", "uniq_shared", "{}");
        ExecuteToolRequest call = first.nextCall();
        first.answer(call.getRequestId(), "{\"owner\":\"a\"}");
        assertThat(agent.result().getOutputJson()).isEqualTo("{\"owner\":\"a\"}");
      }
    }
  }

  @Test
  void concurrentRegistrationsOfTheSameNameOnBothNodesHaveExactlyOneWinner() {
    for (int round = 0; round < 5; round++) {
      String name = "race_" + round;
      RawPack onA = nodes.a().openPack(nodes.a().packToken("race-a-" + round), RawPack.manifest("race-a-" + round, RawPack.tool(name), RawPack.tool(name + "_a")));
      RawPack onB = nodes.b().openPack(nodes.b().packToken("race-b-" + round), RawPack.manifest("race-b-" + round, RawPack.tool(name), RawPack.tool(name + "_b")));
      try {
        boolean aWon = !onA.welcome().getRejectedToolsList().contains(name);
        boolean bWon = !onB.welcome().getRejectedToolsList().contains(name);
        assertThat(aWon ^ bWon).as("exactly one owner of " + name).isTrue();
      } finally {
        onA.close();
        onB.close();
      }
    }
  }

  @Test
  void whenThePacksStreamEndsItsToolsDisappearEverywhere() throws Exception {
    RawPack pack = nodes.a().registerPack(nodes.a().packToken("brief"), RawPack.manifest("brief", RawPack.tool("brief_tool")));
    try (PackHost.ToolAgent before = nodes.b().agent("brief-before")) {
      assertThat(before.toolNames()).contains("brief_tool");
    }
    pack.reset();
    long deadline = System.currentTimeMillis() + 5_000;
    boolean gone = false;
    while (!gone && System.currentTimeMillis() < deadline) {
      try (PackHost.ToolAgent after = nodes.b().agent("brief-after-" + System.nanoTime())) {
        gone = !after.toolNames().contains("brief_tool");
      }
      Thread.sleep(100);
    }
    assertThat(gone).as("brief_tool gone on node b within 5 s").isTrue();
  }

  @Test
  void aQuestionAskedOnOneNodeIsAnsweredOnTheOther() {
    try (PackHost.ToolAgent agent = nodes.a().agent("cross-asker", "ui");
         EventTap tap = nodes.b().gw().admin().stream("cross-asker", "0")) {
      agent.call("q1", "ask_user", "{\"question\":\"Go?\",\"options\":[{\"label\":\"go\"},{\"label\":\"stop\"}]}");
      UserQuestionRequest q = null;
      for (int i = 0; i < 20 && q == null; i++) {
        ClientStreamEvent e = tap.next();
        if (e.hasUserQuestion()) {
          q = e.getUserQuestion();
        }
      }
      assertThat(q).isNotNull();
      var answer = nodes.b().gw().grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder()
        .setAgentId("cross-asker").setQuestionId(q.getQuestionId()).addSelected("go").build(), nodes.b().gw().admin().authorization());
      assertThat(answer.response().orElseThrow().getSuccess()).isTrue();
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"answered\":true,\"selected\":[\"go\"]}");
      var again = nodes.a().gw().grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder()
        .setAgentId("cross-asker").setQuestionId(q.getQuestionId()).addSelected("stop").build(), nodes.a().gw().admin().authorization());
      assertThat(again.response().orElseThrow().getSuccess()).isFalse();
    }
  }
}
