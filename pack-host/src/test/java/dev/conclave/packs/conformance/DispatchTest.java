package dev.conclave.packs.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** An agent's ExecutePackTool reaches the pack that owns the tool, and exactly one PackToolResult comes back. */
class DispatchTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start(TestNode.builder().env("CONCLAVE_PACK_PING_SECONDS", "1"));
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void aCallReachesThePackAndItsResultReachesTheAgentWithTheAgentsRequestId() {
    try (RawPack pack = host.registerPack(host.packToken("echo"), RawPack.manifest("echo", RawPack.tool("echo_text")));
         PackHost.ToolAgent agent = host.agent("caller-1", "chat")) {
      assertThat(agent.toolNames()).contains("echo_text");
      agent.call("agent-req-7", "echo_text", "{\"text\":\"hi\"}");
      ExecuteToolRequest call = pack.nextCall();
      assertThat(call.getToolName()).isEqualTo("echo_text");
      assertThat(call.getInputJson()).isEqualTo("{\"text\":\"hi\"}");
      assertThat(pack.answer(call.getRequestId(), "{\"echo\":\"hi\"}").status()).isEqualTo(GrpcStatus.OK);
      PackToolResult result = agent.result();
      assertThat(result.getRequestId()).isEqualTo("agent-req-7");
      assertThat(result.getOutputJson()).isEqualTo("{\"echo\":\"hi\"}");
      // recorded, with the agent, tool, duration and outcome
      List<Row> rows = query("SELECT agent_id, tool_name, pack_id, outcome, duration_ms, client_request_id FROM packs.tool_calls"
        + " WHERE client_request_id = $1", "agent-req-7");
      assertThat(rows).hasSize(1);
      assertThat(rows.get(0).getString("agent_id")).isEqualTo("caller-1");
      assertThat(rows.get(0).getString("tool_name")).isEqualTo("echo_text");
      assertThat(rows.get(0).getString("pack_id")).isEqualTo("echo");
      assertThat(rows.get(0).getString("outcome")).isEqualTo("ok");
      assertThat(rows.get(0).getLong("duration_ms")).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void aPackErrorReachesTheAgentAsTheResultsError() {
    try (RawPack pack = host.registerPack(host.packToken("failing"), RawPack.manifest("failing", RawPack.tool("always_fails")));
         PackHost.ToolAgent agent = host.agent("caller-2")) {
      agent.call("f1", "always_fails", "{}");
      ExecuteToolRequest call = pack.nextCall();
      pack.fail(call.getRequestId(), "disk on fire");
      PackToolResult result = agent.result();
      assertThat(result.getRequestId()).isEqualTo("f1");
      assertThat(result.getError()).isEqualTo("disk on fire");
    }
  }

  @Test
  void anUnknownToolGivesAClearError() {
    try (PackHost.ToolAgent agent = host.agent("caller-3")) {
      PackToolResult result = agent.run("u1", "no_such_tool", "{}");
      assertThat(result.getError()).contains("unknown tool 'no_such_tool'");
    }
  }

  @Test
  void toolsNeedTheirCapabilitiesInWelcomeAndWhenCalled() {
    try (RawPack pack = host.registerPack(host.packToken("secret"), RawPack.manifest("secret",
      RawPack.tool("secret_read", "vault"), RawPack.tool("secret_write", "vault", "writer")));
         PackHost.ToolAgent reader = host.agent("reader", "vault");
         PackHost.ToolAgent writer = host.agent("writer", "vault", "writer");
         PackHost.ToolAgent nobody = host.agent("nobody", "chat")) {
      assertThat(reader.toolNames()).contains("secret_read").doesNotContain("secret_write", "note_get", "ask_user");
      assertThat(writer.toolNames()).contains("secret_read", "secret_write");
      assertThat(nobody.toolNames()).doesNotContain("secret_read", "secret_write");
      PackToolResult refused = reader.run("c1", "secret_write", "{}");
      assertThat(refused.getError()).contains("requires capabilities [vault, writer]");
      assertThat(nobody.run("c2", "note_get", "{\"key\":\"k\"}").getError()).contains("requires capabilities [notes]");
      assertThat(pack.ended()).isFalse();
    }
  }

  @Test
  void inputThatDoesNotMatchTheSchemaIsRefusedBeforeThePackSeesIt() {
    try (RawPack pack = host.registerPack(host.packToken("typed"), RawPack.manifest("typed", RawPack.tool("typed_tool")));
         PackHost.ToolAgent agent = host.agent("typed-agent")) {
      assertThat(agent.run("t1", "typed_tool", "{\"text\":5}").getError()).startsWith("invalid input for tool 'typed_tool'");
      assertThat(agent.run("t2", "typed_tool", "not json").getError()).contains("input_json is not valid JSON");
      assertThat(agent.run("t3", "typed_tool", "[1]").getError()).contains("input_json must be a JSON object");
    }
  }

  @Test
  void aToolThatDoesNotAnswerInTimeGivesATimeoutAndItsLateResultIsDropped() {
    try (RawPack pack = host.registerPack(host.packToken("sleepy"), RawPack.manifest("sleepy",
      RawPack.tool("sleepy_tool").toBuilder().setTimeoutSeconds(1).build()));
         PackHost.ToolAgent agent = host.agent("impatient")) {
      long t0 = System.nanoTime();
      agent.call("s1", "sleepy_tool", "{}");
      ExecuteToolRequest call = pack.nextCall();
      PackToolResult result = agent.result();
      assertThat(result.getError()).contains("did not answer within 1 s");
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
      var late = pack.answer(call.getRequestId(), "{}");
      assertThat(late.status()).isEqualTo(GrpcStatus.NOT_FOUND);
      assertThat(agent.raw().poll(500)).as("no second result").isNull();
      assertThat(host.gw().node().runtime().context().metrics().counter(MetricNames.PACKS_RESULTS_DROPPED, "reason", "late").count())
        .isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void aDuplicateOrUnknownResultIsRefusedAndTheAgentGetsExactlyOne() {
    try (RawPack pack = host.registerPack(host.packToken("twice"), RawPack.manifest("twice", RawPack.tool("twice_tool")));
         PackHost.ToolAgent agent = host.agent("once")) {
      agent.call("d1", "twice_tool", "{}");
      ExecuteToolRequest call = pack.nextCall();
      assertThat(pack.answer(call.getRequestId(), "{\"n\":1}").status()).isEqualTo(GrpcStatus.OK);
      assertThat(pack.answer(call.getRequestId(), "{\"n\":2}").status()).isEqualTo(GrpcStatus.NOT_FOUND);
      assertThat(pack.answer("never-asked", "{}").status()).isEqualTo(GrpcStatus.NOT_FOUND);
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"n\":1}");
      assertThat(agent.raw().poll(500)).isNull();
    }
  }

  @Test
  void anotherPackCannotAnswerSomeoneElsesCall() {
    try (RawPack owner = host.registerPack(host.packToken("owner"), RawPack.manifest("owner", RawPack.tool("owner_tool")));
         RawPack intruder = host.registerPack(host.packToken("intruder"), RawPack.manifest("intruder", RawPack.tool("intruder_tool")));
         PackHost.ToolAgent agent = host.agent("victim")) {
      agent.call("i1", "owner_tool", "{}");
      ExecuteToolRequest call = owner.nextCall();
      assertThat(intruder.answer(call.getRequestId(), "{\"forged\":true}").status()).isEqualTo(GrpcStatus.NOT_FOUND);
      owner.answer(call.getRequestId(), "{\"real\":true}");
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"real\":true}");
    }
  }

  @Test
  void aPackThatDisconnectsMidCallEndsTheCallAtOnceAndItsToolsVanish() {
    RawPack pack = host.registerPack(host.packToken("fragile"), RawPack.manifest("fragile", RawPack.tool("fragile_tool")));
    try (PackHost.ToolAgent agent = host.agent("fragile-user")) {
      agent.call("x1", "fragile_tool", "{}");
      pack.nextCall();
      long t0 = System.nanoTime();
      pack.reset();
      PackToolResult result = agent.result();
      assertThat(result.getRequestId()).isEqualTo("x1");
      assertThat(result.getError()).contains("pack 'fragile' disconnected while running tool 'fragile_tool'");
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
    }
    try (PackHost.ToolAgent later = host.agent("fragile-later")) {
      assertThat(later.toolNames()).doesNotContain("fragile_tool");
      assertThat(later.run("x2", "fragile_tool", "{}").getError()).contains("unknown tool 'fragile_tool'");
    }
  }

  @Test
  void toolsThatAppearAreSeenByAgentsThatConnectLater() {
    try (PackHost.ToolAgent before = host.agent("early-bird")) {
      assertThat(before.toolNames()).doesNotContain("late_tool");
      try (RawPack pack = host.registerPack(host.packToken("late"), RawPack.manifest("late", RawPack.tool("late_tool")));
           PackHost.ToolAgent after = host.agent("late-comer")) {
        assertThat(after.toolNames()).contains("late_tool");
        // an agent connected before the pack can still call it by name
        before.call("e1", "late_tool", "{}");
        ExecuteToolRequest call = pack.nextCall();
        pack.answer(call.getRequestId(), "{}");
        assertThat(before.result().getRequestId()).isEqualTo("e1");
      }
    }
  }

  @Test
  void theAgentsOtherTrafficDoesNotWaitForAToolCall() {
    try (RawPack pack = host.registerPack(host.packToken("slow"), RawPack.manifest("slow", RawPack.tool("slow_tool")));
         PackHost.ToolAgent agent = host.agent("busy")) {
      agent.call("slow-1", "slow_tool", "{}");
      ExecuteToolRequest call = pack.nextCall();
      // while the tool runs, a message round trip completes
      String requestId = host.gw().admin().sendOk("busy", "hello", "k-busy");
      ServerMessage work = agent.raw().next();
      assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
      agent.raw().respond(requestId, MessageResponse.newBuilder().setText("working"));
      agent.raw().respond(requestId, MessageResponse.newBuilder().setDone(dev.conclave.proto.coven.Done.newBuilder()));
      pack.answer(call.getRequestId(), "{\"slow\":true}");
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"slow\":true}");
    }
  }

  @Test
  void manyConcurrentCallsEachGetTheirOwnResult() {
    try (RawPack pack = host.registerPack(host.packToken("many"), RawPack.manifest("many", RawPack.tool("many_tool")));
         PackHost.ToolAgent agent = host.agent("many-caller")) {
      int n = 40;
      for (int i = 0; i < n; i++) {
        agent.call("m" + i, "many_tool", "{\"text\":\"" + i + "\"}");
      }
      for (int i = 0; i < n; i++) {
        ExecuteToolRequest call = pack.nextCall();
        pack.answer(call.getRequestId(), call.getInputJson());
      }
      List<PackToolResult> results = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        results.add(agent.result());
      }
      assertThat(results).allSatisfy(r -> assertThat(r.getOutputJson()).isEqualTo("{\"text\":\"" + r.getRequestId().substring(1) + "\"}"));
      assertThat(results.stream().map(PackToolResult::getRequestId).distinct()).hasSize(n);
    }
  }

  private static List<Row> query(String sql, Object... params) {
    var pool = host.gw().node().runtime().context().pool();
    List<Row> out = new ArrayList<>();
    for (int attempt = 0; attempt < 50 && out.isEmpty(); attempt++) {
      GatewayFixture.await(pool.preparedQuery(sql).execute(Tuple.from(params))).forEach(out::add);
      if (out.isEmpty()) {
        sleep(100);
      }
    }
    return out;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
