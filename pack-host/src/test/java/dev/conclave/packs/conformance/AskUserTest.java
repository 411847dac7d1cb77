package dev.conclave.packs.conformance;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.packs.support.PackHost;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.AnswerQuestionResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** ask_user is a real round trip: the question reaches the conversation's followers and exactly one answer reaches the agent. */
class AskUserTest {

  static final String QUESTION = "{\"question\":\"Deploy now?\",\"header\":\"deploy\",\"options\":[{\"label\":\"yes\",\"description\":\"ship it\"},"
    + "{\"label\":\"no\"}]}";

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start(TestNode.builder().env("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", "3"));
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void aQuestionReachesFollowersAndTheAnswerReturnsToTheAgentExactlyOnce() {
    Clients admin = host.gw().admin();
    try (PackHost.ToolAgent agent = host.agent("asker", "ui");
         EventTap tap = admin.stream("asker", "0")) {
      assertThat(agent.toolNames()).contains("ask_user");
      agent.call("q1", "ask_user", QUESTION);
      UserQuestionRequest q = question(tap);
      assertThat(q.getAgentId()).isEqualTo("asker");
      assertThat(q.getQuestion()).isEqualTo("Deploy now?");
      assertThat(q.getHeader()).isEqualTo("deploy");
      assertThat(q.getOptionsList()).extracting(o -> o.getLabel()).containsExactly("yes", "no");
      assertThat(q.getOptions(0).getDescription()).isEqualTo("ship it");
      assertThat(q.getTimeoutSeconds()).isEqualTo(3);

      AnswerQuestionResponse first = answer(admin, "asker", q.getQuestionId(), "yes");
      assertThat(first.getSuccess()).isTrue();
      PackToolResult result = agent.result();
      assertThat(result.getRequestId()).isEqualTo("q1");
      assertThat(new JsonObject(result.getOutputJson())).isEqualTo(new JsonObject().put("answered", true)
        .put("selected", new io.vertx.core.json.JsonArray().add("yes")));

      AnswerQuestionResponse second = answer(admin, "asker", q.getQuestionId(), "no");
      assertThat(second.getSuccess()).isFalse();
      assertThat(second.getError()).contains("already answered");
    }
  }

  @Test
  void anUnansweredQuestionTimesOutWithAClearErrorAndCanNoLongerBeAnswered() {
    Clients admin = host.gw().admin();
    try (PackHost.ToolAgent agent = host.agent("lonely", "ui");
         EventTap tap = admin.stream("lonely", "0")) {
      long t0 = System.nanoTime();
      agent.call("t1", "ask_user", QUESTION);
      UserQuestionRequest q = question(tap);
      PackToolResult result = agent.result(15_000);
      assertThat(result.getError()).contains("nobody answered within 3 s");
      assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(2_500L, 10_000L);
      AnswerQuestionResponse late = answer(admin, "lonely", q.getQuestionId(), "yes");
      assertThat(late.getSuccess()).isFalse();
      assertThat(late.getError()).contains("expired");
    }
  }

  @Test
  void aFollowerThatResumesLaterStillSeesTheOpenQuestion() {
    Clients admin = host.gw().admin();
    try (PackHost.ToolAgent agent = host.agent("patient", "ui")) {
      agent.call("p1", "ask_user", QUESTION);
      UserQuestionRequest asked;
      try (EventTap first = admin.stream("patient", "0")) {
        asked = question(first);
      }
      // resume after the question's own event: it is sent again while it is open
      long last = lastSeq(admin, "patient");
      try (EventTap resumed = admin.stream("patient", Long.toString(last))) {
        ClientStreamEvent again = resumed.next();
        assertThat(again.hasUserQuestion()).isTrue();
        assertThat(again.getUserQuestion().getQuestionId()).isEqualTo(asked.getQuestionId());
      }
      assertThat(answer(admin, "patient", asked.getQuestionId(), "no").getSuccess()).isTrue();
      assertThat(agent.result().getOutputJson()).contains("\"no\"");
    }
  }

  @Test
  void badAnswersAreRefusedAndAWrongAgentDoesNotUseTheQuestionUp() {
    Clients admin = host.gw().admin();
    try (PackHost.ToolAgent agent = host.agent("picky", "ui");
         EventTap tap = admin.stream("picky", "0")) {
      agent.call("b1", "ask_user", QUESTION);
      UserQuestionRequest q = question(tap);
      GrpcCalls.Outcome<AnswerQuestionResponse> notAnOption = host.gw().grpc().unary(ClientServiceGrpcClient.AnswerQuestion,
        AnswerQuestionRequest.newBuilder().setAgentId("picky").setQuestionId(q.getQuestionId()).addSelected("maybe").build(), admin.authorization());
      assertThat(notAnOption.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      GrpcCalls.Outcome<AnswerQuestionResponse> two = host.gw().grpc().unary(ClientServiceGrpcClient.AnswerQuestion,
        AnswerQuestionRequest.newBuilder().setAgentId("picky").setQuestionId(q.getQuestionId()).addSelected("yes").addSelected("no").build(),
        admin.authorization());
      assertThat(two.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      AnswerQuestionResponse wrongAgent = answer(admin, "someone-else", q.getQuestionId(), "yes");
      assertThat(wrongAgent.getSuccess()).isFalse();
      assertThat(wrongAgent.getError()).contains("no pending question");
      AnswerQuestionResponse unknown = answer(admin, "picky", "not-a-question", "yes");
      assertThat(unknown.getSuccess()).isFalse();
      // the question is still open for the right answer
      GrpcCalls.Outcome<AnswerQuestionResponse> custom = host.gw().grpc().unary(ClientServiceGrpcClient.AnswerQuestion,
        AnswerQuestionRequest.newBuilder().setAgentId("picky").setQuestionId(q.getQuestionId()).setCustomText("only on Friday").build(),
        admin.authorization());
      assertThat(custom.response().orElseThrow().getSuccess()).isTrue();
      assertThat(new JsonObject(agent.result().getOutputJson()).getString("custom_text")).isEqualTo("only on Friday");
    }
  }

  @Test
  void badQuestionsAreToolErrors() {
    try (PackHost.ToolAgent agent = host.agent("muddled", "ui")) {
      assertThat(agent.run("e1", "ask_user", "{\"question\":\"\",\"options\":[{\"label\":\"a\"}]}").getError()).isEqualTo("question is required");
      assertThat(agent.run("e2", "ask_user", "{\"question\":\"q\",\"options\":[]}").getError()).isEqualTo("at least one option is required");
      assertThat(agent.run("e3", "ask_user", "{\"question\":\"q\",\"options\":[{\"label\":\"a\"},{\"label\":\"a\"}]}").getError())
        .isEqualTo("duplicate option label: \"a\"");
      assertThat(agent.run("e4", "ask_user", "{\"question\":\"q\"}").getError()).startsWith("invalid input for tool 'ask_user'");
    }
  }

  static UserQuestionRequest question(EventTap tap) {
    for (int i = 0; i < 20; i++) {
      ClientStreamEvent e = tap.next();
      if (e.hasUserQuestion()) {
        return e.getUserQuestion();
      }
    }
    throw new AssertionError("no user_question event");
  }

  static AnswerQuestionResponse answer(Clients client, String agentId, String questionId, String option) {
    return client.grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder()
      .setAgentId(agentId).setQuestionId(questionId).addSelected(option).build(), client.authorization()).response().orElseThrow();
  }

  private static long lastSeq(Clients client, String conversation) {
    var page = client.grpc().unary(ClientServiceGrpcClient.GetEvents, dev.conclave.proto.coven.GetEventsRequest.newBuilder()
      .setConversationKey(conversation).setLimit(500).build(), client.authorization()).response().orElseThrow();
    return Long.parseLong(page.getEvents(page.getEventsCount() - 1).getId());
  }
}
