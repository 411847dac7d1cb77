package dev.conclave.packs.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.packs.support.PackHost;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP session holds nothing open between requests, so its access is re-checked on each (issue
 * 40, finding 2): once its token's principal may no longer act on its agent (here: the agent id
 * passed to another principal, as an admin's registration may take it), the next request is
 * refused with 403 {@code access_revoked} and the session is closed.
 */
class McpAccessTest {

  private static PackHost host;
  private static WebClient http;

  @BeforeAll
  static void start() {
    host = PackHost.start();
    http = WebClient.create(host.gw().vertx());
  }

  @AfterAll
  static void stop() {
    http.close();
    host.close();
  }

  @Test
  void aSessionWhoseCallerLostItsAgentIsRefusedAndClosed() {
    try (PackHost.ToolAgent agent = host.agent("mcp-lost", "notes")) {
      String token = agent.welcome().getMcpToken();
      HttpResponse<Buffer> opened = post(token, null, McpEndpointTest.initialize("2025-06-18"));
      assertThat(opened.statusCode()).isEqualTo(200);
      String session = opened.getHeader("mcp-session-id");
      assertThat(post(token, session, McpEndpointTest.request("tools/list", new JsonObject())).statusCode()).isEqualTo(200);

      UUID other = host.gw().newPrincipal(PrincipalType.AGENT, "mcp-taker", PrincipalStatus.APPROVED, List.of()).id();
      GatewayFixture.await(host.gw().node().runtime().context().pool()
        .preparedQuery("UPDATE gateway.agents SET principal_id = $1 WHERE agent_id = $2").execute(Tuple.of(other, "mcp-lost")));

      HttpResponse<Buffer> refused = post(token, session, McpEndpointTest.request("tools/list", new JsonObject()));
      assertThat(refused.statusCode()).as(refused.bodyAsString()).isEqualTo(403);
      assertThat(refused.bodyAsJsonObject().getJsonObject("error").getString("message")).startsWith("access_revoked:").contains("mcp-lost");
      assertThat(post(token, session, McpEndpointTest.request("tools/list", new JsonObject())).statusCode())
        .as("the session was closed").isEqualTo(404);
      HttpResponse<Buffer> again = post(token, null, McpEndpointTest.initialize("2025-06-18"));
      assertThat(again.statusCode()).isEqualTo(403);
      assertThat(again.bodyAsJsonObject().getJsonObject("error").getString("message")).startsWith("agent_access_denied:");
    }
  }

  private static HttpResponse<Buffer> post(String token, String session, JsonObject body) {
    HttpRequest<Buffer> req = http.post(host.gw().node().httpPort(), "127.0.0.1", "/mcp").putHeader("accept", "application/json, text/event-stream")
      .bearerTokenAuthentication(token);
    if (session != null) {
      req.putHeader("mcp-session-id", session);
    }
    try {
      return req.sendJsonObject(body).await(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
