package dev.conclave.packs.conformance;

import com.google.protobuf.Empty;
import dev.conclave.packs.support.PackHost;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The MCP endpoint: Streamable HTTP, sessions, tokens valid only there, tools scoped to the agent. */
class McpEndpointTest {

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
  void theWelcomeNamesTheEndpointAndATokenThatWorksOnlyThere() {
    try (PackHost.ToolAgent agent = host.agent("mcp-token", "notes")) {
      String mcp = agent.welcome().getMcpToken();
      assertThat(agent.welcome().getMcpEndpoint()).endsWith(":" + host.gw().node().httpPort() + "/mcp");
      GrpcCalls.Outcome<?> grpc = host.gw().grpc().unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(mcp));
      assertThat(grpc.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(grpc.message()).startsWith("token_wrong_purpose:");
      HttpResponse<Buffer> api = send(http.get(port(), "127.0.0.1", "/api/v1/gateway/agents").bearerTokenAuthentication(mcp), null);
      assertThat(api.statusCode()).isEqualTo(401);
      assertThat(api.bodyAsJsonObject().getString("code")).isEqualTo("token_wrong_purpose");
      assertThat(send(http.get(port(), "127.0.0.1", "/api/v1/packs").bearerTokenAuthentication(mcp), null).statusCode()).isEqualTo(401);
    }
  }

  @Test
  void noTokenAWrongTokenOrAnApiTokenGets401() {
    assertThat(post(null, null, initialize("2025-06-18")).statusCode()).isEqualTo(401);
    HttpResponse<Buffer> garbage = post("not-a-token", null, initialize("2025-06-18"));
    assertThat(garbage.statusCode()).isEqualTo(401);
    assertThat(garbage.getHeader("www-authenticate")).startsWith("Bearer");
    HttpResponse<Buffer> api = post(host.gw().node().adminToken(), null, initialize("2025-06-18"));
    assertThat(api.statusCode()).isEqualTo(401);
    assertThat(api.bodyAsString()).startsWith("token_wrong_purpose");
  }

  @Test
  void initializeNegotiatesTheVersionAndOpensASession() {
    try (PackHost.ToolAgent agent = host.agent("mcp-init", "notes")) {
      String token = agent.welcome().getMcpToken();
      for (String version : List.of("2025-06-18", "2025-11-25")) {
        HttpResponse<Buffer> r = post(token, null, initialize(version));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.getHeader("mcp-session-id")).isNotBlank();
        JsonObject result = r.bodyAsJsonObject().getJsonObject("result");
        assertThat(result.getString("protocolVersion")).isEqualTo(version);
        assertThat(result.getJsonObject("capabilities").containsKey("tools")).isTrue();
        assertThat(result.getJsonObject("serverInfo").getString("name")).isEqualTo("conclave");
      }
      HttpResponse<Buffer> old = post(token, null, initialize("2024-01-01"));
      assertThat(old.bodyAsJsonObject().getJsonObject("result").getString("protocolVersion")).isEqualTo("2025-11-25");
    }
  }

  @Test
  void toolsAreScopedToTheAgentAndRunAsIt() {
    try (PackHost.ToolAgent agent = host.agent("mcp-notes", "notes")) {
      String token = agent.welcome().getMcpToken();
      String session = session(token);
      assertThat(post(token, session, notification("notifications/initialized")).statusCode()).isEqualTo(202);
      JsonArray tools = rpc(token, session, "tools/list", new JsonObject()).getJsonObject("result").getJsonArray("tools");
      List<String> names = tools.stream().map(t -> ((JsonObject) t).getString("name")).toList();
      assertThat(names).containsExactlyInAnyOrder("note_set", "note_get", "note_list", "note_delete");
      assertThat(((JsonObject) tools.getValue(0)).getJsonObject("inputSchema").getString("type")).isEqualTo("object");

      JsonObject set = rpc(token, session, "tools/call", new JsonObject().put("name", "note_set")
        .put("arguments", new JsonObject().put("key", "color").put("value", "teal"))).getJsonObject("result");
      assertThat(set.getBoolean("isError", false)).isFalse();
      JsonObject got = rpc(token, session, "tools/call", new JsonObject().put("name", "note_get")
        .put("arguments", new JsonObject().put("key", "color"))).getJsonObject("result");
      assertThat(new JsonObject(got.getJsonArray("content").getJsonObject(0).getString("text")).getString("value")).isEqualTo("teal");
      // the same note over the agent's own stream: MCP calls act as the agent
      assertThat(agent.run("n1", "note_get", "{\"key\":\"color\"}").getOutputJson()).contains("teal");

      JsonObject missing = rpc(token, session, "tools/call", new JsonObject().put("name", "note_get")
        .put("arguments", new JsonObject().put("key", "nope"))).getJsonObject("result");
      assertThat(missing.getBoolean("isError")).isTrue();

      JsonObject forbidden = rpc(token, session, "tools/call", new JsonObject().put("name", "ask_user")
        .put("arguments", new JsonObject().put("question", "q").put("options", new JsonArray().add(new JsonObject().put("label", "a")))));
      assertThat(forbidden.containsKey("result")).isFalse();
      assertThat(forbidden.getJsonObject("error").getInteger("code")).isEqualTo(-32602);
      assertThat(forbidden.getJsonObject("error").getString("message")).contains("requires capabilities [ui]");

      JsonObject unknown = rpc(token, session, "tools/call", new JsonObject().put("name", "nothing_here"));
      assertThat(unknown.getJsonObject("error").getInteger("code")).isEqualTo(-32602);
      assertThat(rpc(token, session, "ping", new JsonObject()).getJsonObject("result")).isEqualTo(new JsonObject());
      assertThat(rpc(token, session, "resources/list", new JsonObject()).getJsonObject("error").getInteger("code")).isEqualTo(-32601);
    }
  }

  @Test
  void sessionsAreRequiredBelongToTheirAgentAndEndOnDelete() {
    try (PackHost.ToolAgent a = host.agent("mcp-a", "notes"); PackHost.ToolAgent b = host.agent("mcp-b", "notes")) {
      String tokenA = a.welcome().getMcpToken();
      String tokenB = b.welcome().getMcpToken();
      String session = session(tokenA);
      assertThat(post(tokenA, null, request("tools/list", new JsonObject())).statusCode()).isEqualTo(400);
      assertThat(post(tokenA, "made-up", request("tools/list", new JsonObject())).statusCode()).isEqualTo(404);
      assertThat(post(tokenB, session, request("tools/list", new JsonObject())).statusCode()).as("another agent's session").isEqualTo(404);
      HttpResponse<Buffer> badVersion = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(tokenA)
        .putHeader("mcp-session-id", session).putHeader("mcp-protocol-version", "1999-01-01"), request("tools/list", new JsonObject()));
      assertThat(badVersion.statusCode()).isEqualTo(400);
      assertThat(send(http.delete(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(tokenA).putHeader("mcp-session-id", session), null)
        .statusCode()).isEqualTo(204);
      assertThat(post(tokenA, session, request("tools/list", new JsonObject())).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void malformedRequestsGetJsonRpcErrorsNotServerErrors() {
    try (PackHost.ToolAgent agent = host.agent("mcp-bad", "notes")) {
      String token = agent.welcome().getMcpToken();
      String session = session(token);
      HttpResponse<Buffer> garbage = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("mcp-session-id", session), Buffer.buffer("{not json"));
      assertThat(garbage.statusCode()).isEqualTo(400);
      assertThat(garbage.bodyAsJsonObject().getJsonObject("error").getInteger("code")).isEqualTo(-32700);
      HttpResponse<Buffer> batch = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("mcp-session-id", session), Buffer.buffer("[" + request("ping", new JsonObject()).encode() + "]"));
      assertThat(batch.statusCode()).isEqualTo(400);
      assertThat(batch.bodyAsJsonObject().getJsonObject("error").getInteger("code")).isEqualTo(-32600);
      assertThat(send(http.get(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token), null).statusCode()).isEqualTo(405);
      HttpResponse<Buffer> foreign = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("origin", "http://evil.example"), initialize("2025-06-18"));
      assertThat(foreign.statusCode()).isEqualTo(403);
      // the node's browser rule (CrossSite): another port of the same host is another origin
      HttpResponse<Buffer> otherPort = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("origin", "http://127.0.0.1:1"), initialize("2025-06-18"));
      assertThat(otherPort.statusCode()).isEqualTo(403);
      HttpResponse<Buffer> own = send(http.post(port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("origin", "http://127.0.0.1:" + port()), initialize("2025-06-18"));
      assertThat(own.statusCode()).isEqualTo(200);
    }
  }

  static JsonObject initialize(String version) {
    return request("initialize", new JsonObject().put("protocolVersion", version).put("capabilities", new JsonObject())
      .put("clientInfo", new JsonObject().put("name", "test").put("version", "1")));
  }

  static JsonObject request(String method, JsonObject params) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", method).put("params", params);
  }

  static JsonObject notification(String method) {
    return new JsonObject().put("jsonrpc", "2.0").put("method", method);
  }

  private static String session(String token) {
    HttpResponse<Buffer> r = post(token, null, initialize("2025-11-25"));
    assertThat(r.statusCode()).isEqualTo(200);
    return r.getHeader("mcp-session-id");
  }

  private static JsonObject rpc(String token, String session, String method, JsonObject params) {
    HttpResponse<Buffer> r = post(token, session, request(method, params));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  /** JSON is UTF-8 whatever charset the content-type names: an unknown one was a 500 (fuzz finding). */
  @Test
  void aBogusCharsetIsNotAServerError() {
    try (PackHost.ToolAgent agent = host.agent("mcp-charset", "notes")) {
      HttpRequest<Buffer> req = http.post(port(), "127.0.0.1", "/mcp").putHeader("accept", "application/json, text/event-stream")
        .putHeader("content-type", "application/json; charset=nonsense").bearerTokenAuthentication(agent.welcome().getMcpToken());
      HttpResponse<Buffer> r = send(req, request("initialize", new JsonObject().put("protocolVersion", "2025-06-18")
        .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))).toBuffer());
      assertThat(r.statusCode()).as(r.bodyAsString()).isLessThan(500);
    }
  }

  private static HttpResponse<Buffer> post(String token, String session, JsonObject body) {
    HttpRequest<Buffer> req = http.post(port(), "127.0.0.1", "/mcp").putHeader("accept", "application/json, text/event-stream");
    if (token != null) {
      req.bearerTokenAuthentication(token);
    }
    if (session != null) {
      req.putHeader("mcp-session-id", session);
    }
    return send(req, body);
  }

  private static HttpResponse<Buffer> send(HttpRequest<Buffer> req, Object body) {
    try {
      var f = body == null ? req.send() : body instanceof Buffer b ? req.sendBuffer(b) : req.sendJsonObject((JsonObject) body);
      return f.await(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static int port() {
    return host.gw().node().httpPort();
  }
}
