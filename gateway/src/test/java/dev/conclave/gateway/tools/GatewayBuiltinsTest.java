package dev.conclave.gateway.tools;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.UserQuestionRequest;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway's own tools (ask_user, admin_*) are the gateway's: they are listed and run on a node
 * that has no pack host at all, so a call never leaves the gateway for a pack host and comes back.
 */
class GatewayBuiltinsTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    // the gateway role alone: no pack host anywhere in this cluster
    gw = GatewayFixture.start(TestNode.builder().env("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", "20"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void askUserIsListedAndAnsweredWithoutAPackHost() {
    try (RawAgent agent = gw.agent(gw.agentToken("lone-asker"));
         EventTap tap = gw.admin().stream("lone-asker", "0")) {
      Welcome welcome = agent.register(RawAgent.registration("lone-asker").clearCapabilities().addCapabilities("ui"));
      List<String> names = welcome.getAvailableToolsList().stream().map(ToolDefinition::getName).toList();
      assertThat(names).contains("ask_user").doesNotContain("admin_list_agents");
      ToolDefinition askUser = welcome.getAvailableToolsList().stream().filter(t -> t.getName().equals("ask_user")).findFirst().orElseThrow();
      assertThat(askUser.getRequiredCapabilitiesList()).containsExactly("ui");
      assertThat(askUser.getTimeoutSeconds()).isEqualTo(25);

      call(agent, "q1", "ask_user", "{\"question\":\"Ship?\",\"options\":[{\"label\":\"yes\"},{\"label\":\"no\"}]}");
      UserQuestionRequest q = question(tap);
      assertThat(q.getQuestion()).isEqualTo("Ship?");
      Clients admin = gw.admin();
      assertThat(admin.grpc().unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder()
        .setAgentId("lone-asker").setQuestionId(q.getQuestionId()).addSelected("yes").build(), admin.authorization())
        .response().orElseThrow().getSuccess()).isTrue();
      PackToolResult result = result(agent);
      assertThat(result.getRequestId()).isEqualTo("q1");
      assertThat(result.getError()).isEmpty();
      assertThat(new JsonObject(result.getOutputJson())).isEqualTo(new JsonObject().put("answered", true)
        .put("selected", new JsonArray().add("yes")));
    }
  }

  @Test
  void theGatewaysToolsKeepTheirChecksWithoutAPackHost() {
    try (RawAgent agent = gw.agent(gw.agentToken("lone-checker"))) {
      agent.register(RawAgent.registration("lone-checker").clearCapabilities().addCapabilities("ui"));
      call(agent, "e1", "ask_user", "{\"question\":\"\",\"options\":[{\"label\":\"a\"}]}");
      assertThat(result(agent).getError()).isEqualTo("question is required");
      call(agent, "e2", "ask_user", "{\"question\":\"q\"}");
      assertThat(result(agent).getError()).startsWith("invalid input for tool 'ask_user'");
      // the admin tools need a capability this agent does not have (and could not have without a grant)
      call(agent, "e3", "admin_list_agents", "{}");
      assertThat(result(agent).getError()).startsWith("tool 'admin_list_agents' requires capabilities [admin]");
    }
  }

  private static void call(RawAgent agent, String id, String tool, String input) {
    agent.send(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder().setRequestId(id).setToolName(tool)
      .setInputJson(input)).build());
  }

  private static PackToolResult result(RawAgent agent) {
    for (int i = 0; i < 20; i++) {
      ServerMessage m = agent.next(30_000);
      if (m.hasPackToolResult()) {
        return m.getPackToolResult();
      }
    }
    throw new AssertionError("no pack tool result");
  }

  private static UserQuestionRequest question(EventTap tap) {
    for (int i = 0; i < 20; i++) {
      ClientStreamEvent e = tap.next();
      if (e.hasUserQuestion()) {
        return e.getUserQuestion();
      }
    }
    throw new AssertionError("no user_question event");
  }
}
