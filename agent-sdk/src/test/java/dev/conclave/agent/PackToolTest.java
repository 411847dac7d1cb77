package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ExecutePackTool;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class PackToolTest extends ClientTestBase {

  private static ExecutePackTool nextCall(AgentConn conn) {
    AgentMessage m = conn.next();
    assertThat(m.hasExecutePackTool()).as("expected ExecutePackTool, got %s", m).isTrue();
    return m.getExecutePackTool();
  }

  @Test
  void roundTripsOutputAndErrorsByRequestId() {
    FakeGateway gw = gateway("node-a");
    AgentClient client = started(builder(gw.endpoint()));
    AgentConn conn = gw.nextConnection();

    Future<PackToolResult> first = client.executePackTool("weather", "{\"city\":\"Paris\"}");
    Future<PackToolResult> second = client.executePackTool("translate", "{\"text\":\"hi\"}");
    ExecutePackTool call1 = nextCall(conn);
    ExecutePackTool call2 = nextCall(conn);
    assertThat(call1.getToolName()).isEqualTo("weather");
    assertThat(call1.getInputJson()).isEqualTo("{\"city\":\"Paris\"}");
    assertThat(call2.getToolName()).isEqualTo("translate");
    assertThat(call1.getRequestId()).isNotEmpty().isNotEqualTo(call2.getRequestId());

    // answered out of order
    conn.packToolError(call2.getRequestId(), "language not supported");
    conn.packToolOutput(call1.getRequestId(), "{\"temp\":21}");

    PackToolResult r1 = Wait.result(first);
    assertThat(r1.succeeded()).isTrue();
    assertThat(r1.toolName()).isEqualTo("weather");
    assertThat(r1.requestId()).isEqualTo(call1.getRequestId());
    assertThat(r1.outputJson()).contains("{\"temp\":21}");
    assertThat(r1.error()).isEmpty();
    PackToolResult r2 = Wait.result(second);
    assertThat(r2.succeeded()).isFalse();
    assertThat(r2.error()).contains("language not supported");
  }

  @Test
  void handlersCanCallPackToolsWhileAnsweringAMessage() {
    FakeGateway gw = gateway("node-a");
    AgentClient[] holder = new AgentClient[1];
    AgentClient client = started(builder(gw.endpoint()).handler((msg, out) ->
      holder[0].executePackTool("weather", "{}").compose(r -> out.done(r.outputJson().orElse("?")))));
    holder[0] = client;
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "weather?");
    ExecutePackTool call = nextCall(conn);
    conn.packToolOutput(call.getRequestId(), "{\"sunny\":true}");
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("{\"sunny\":true}");
  }

  @Test
  void timesOutWhenNoResultArrivesAndIgnoresTheLateOne() {
    FakeGateway gw = gateway("node-a");
    AgentClient client = started(builder(gw.endpoint()));
    AgentConn conn = gw.nextConnection();

    Future<PackToolResult> call = client.executePackTool("slow_tool", "{}", Duration.ofMillis(150));
    ExecutePackTool sent = nextCall(conn);

    assertThat(Wait.failure(call)).isInstanceOfSatisfying(PackToolTimeoutException.class, e -> {
      assertThat(e.toolName()).isEqualTo("slow_tool");
      assertThat(e.requestId()).isEqualTo(sent.getRequestId());
    });
    conn.packToolOutput(sent.getRequestId(), "{}");
    // still healthy afterwards
    Future<PackToolResult> again = client.executePackTool("slow_tool", "{}");
    conn.packToolOutput(nextCall(conn).getRequestId(), "{\"ok\":1}");
    assertThat(Wait.result(again).outputJson()).contains("{\"ok\":1}");
  }

  @Test
  void pendingCallsFailWhenTheConnectionDrops() {
    FakeGateway gw = gateway("node-a");
    AgentClient client = started(builder(gw.endpoint()));
    AgentConn conn = gw.nextConnection();

    Future<PackToolResult> call = client.executePackTool("weather", "{}");
    nextCall(conn);
    conn.dropConnection();

    assertThat(Wait.failure(call)).isInstanceOf(ConnectionLostException.class);
  }

  @Test
  void callsFailFastWhenNotRegistered() {
    AgentClient client = client(builder(new Endpoint("127.0.0.1", FakeGateway.deadPort())));
    assertThat(Wait.failure(client.executePackTool("weather", "{}"))).isInstanceOf(NotConnectedException.class);
  }
}
