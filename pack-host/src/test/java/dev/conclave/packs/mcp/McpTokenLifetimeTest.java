package dev.conclave.packs.mcp;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.support.McpClient;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.TwoNodes;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, finding 11: an agent's MCP token kept working for 24 h after its agent disconnected, and
 * every registration stored another token row. The MCP token now lives exactly as long as the
 * agent's session, on every node, and is not stored in {@code auth.tokens}.
 */
class McpTokenLifetimeTest {

  private static TwoNodes nodes;
  private static McpClient onA;
  private static McpClient onB;

  @BeforeAll
  static void start() {
    nodes = TwoNodes.start();
    onA = new McpClient(nodes.a().gw().vertx(), nodes.a().gw().node().httpPort());
    onB = new McpClient(nodes.b().gw().vertx(), nodes.b().gw().node().httpPort());
  }

  @AfterAll
  static void stop() {
    onA.close();
    onB.close();
    nodes.close();
  }

  @Test
  void theTokenStopsWorkingOnTheSameNodeWhenTheAgentsStreamEnds() {
    GatewayFixture gw = nodes.a().gw();
    RawAgent agent = gw.agent(gw.agentToken("mcp-life-1"));
    Welcome welcome = agent.register(registration("mcp-life-1"));
    String token = welcome.getMcpToken();
    String session = onA.session(token);
    assertThat(onA.toolNames(token, session)).contains("note_get");

    agent.finish();
    agent.awaitEnd();
    awaitGoneFromPresence(gw.node().runtime().vertx(), "mcp-life-1");

    McpClient.Answer refused = onA.rpc(token, session, "tools/list", new JsonObject());
    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.body()).startsWith("token_session_ended:");
    assertThat(onA.initialize(token).status()).as("no new MCP session either").isEqualTo(401);
  }

  @Test
  void theTokenStopsWorkingOnAnotherNodeWhenTheAgentsStreamEnds() {
    GatewayFixture gw = nodes.a().gw();
    RawAgent agent = gw.agent(gw.agentToken("mcp-life-2"));
    String token = agent.register(registration("mcp-life-2")).getMcpToken();
    String session = onB.session(token);
    assertThat(onB.toolNames(token, session)).contains("note_get");

    agent.reset();
    awaitGoneFromPresence(nodes.b().gw().node().runtime().vertx(), "mcp-life-2");

    McpClient.Answer refused = onB.rpc(token, session, "tools/list", new JsonObject());
    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.body()).startsWith("token_session_ended:");
  }

  @Test
  void aNewRegistrationEndsTheOlderSessionsTokenAndItsOwnWorks() {
    GatewayFixture gw = nodes.a().gw();
    String apiToken = gw.agentToken("mcp-life-3");
    RawAgent first = gw.agent(apiToken);
    String old = first.register(registration("mcp-life-3")).getMcpToken();
    assertThat(onA.initialize(old).status()).isEqualTo(200);

    RawAgent second = nodes.b().gw().agent(apiToken);
    String fresh = second.register(registration("mcp-life-3")).getMcpToken();
    first.awaitEnd();
    try {
      String session = onA.session(fresh);
      assertThat(onA.toolNames(fresh, session)).contains("note_get");
      assertThat(awaitRefused(old)).startsWith("token_session_ended:");
    } finally {
      second.close();
    }
  }

  @Test
  void registrationsStoreNoTokenRows() {
    GatewayFixture gw = nodes.a().gw();
    String apiToken = gw.agentToken("mcp-rows");
    for (int i = 0; i < 3; i++) {
      RawAgent agent = gw.agent(apiToken);
      agent.register(registration("mcp-rows"));
      agent.finish();
      agent.awaitEnd();
    }
    long mcpRows = GatewayFixture.await(gw.node().runtime().context().pool()
      .query("SELECT count(*) FROM auth.tokens WHERE purpose = 'mcp'").execute()).iterator().next().getLong(0);
    assertThat(mcpRows).isZero();
  }

  private static RegisterAgent.Builder registration(String agentId) {
    return RawAgent.registration(agentId).clearCapabilities().addAllCapabilities(List.of("notes"));
  }

  /** The refusal an MCP initialize with {@code token} gets once the superseded session has closed. */
  private static String awaitRefused(String token) {
    long deadline = System.currentTimeMillis() + 10_000;
    while (true) {
      McpClient.Answer a = onA.initialize(token);
      if (a.status() == 401 || System.currentTimeMillis() > deadline) {
        return a.body();
      }
      sleep(50);
    }
  }

  /** Waits until the agent's session has let go of its presence (its stream's end has been handled). */
  private static void awaitGoneFromPresence(Vertx vertx, String agentId) {
    long deadline = System.currentTimeMillis() + 10_000;
    while (GatewayFixture.await(vertx.sharedData().getAsyncMap(Addresses.PRESENCE_MAP).compose(m -> m.get(agentId))) != null) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("agent " + agentId + " is still present 10 s after its stream ended");
      }
      sleep(20);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
