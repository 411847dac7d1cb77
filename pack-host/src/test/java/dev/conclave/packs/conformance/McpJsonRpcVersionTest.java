package dev.conclave.packs.conformance;

import dev.conclave.packs.support.PackHost;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MCP speaks JSON-RPC 2.0 only: every answer says {@code "jsonrpc": "2.0"}, and a message that
 * names another version (or none) is an invalid request (-32600), never served as if it were 2.0.
 */
class McpJsonRpcVersionTest {

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
  void anotherJsonRpcVersionIsAnInvalidRequestAnsweredIn2() {
    try (PackHost.ToolAgent agent = host.agent("mcp-version", "notes")) {
      String token = agent.welcome().getMcpToken();
      HttpResponse<Buffer> opened = post(token, null, message("2.0", "initialize", initializeParams()));
      assertThat(opened.statusCode()).isEqualTo(200);
      assertThat(opened.bodyAsJsonObject().getString("jsonrpc")).isEqualTo("2.0");
      String session = opened.getHeader("mcp-session-id");
      for (String version : new String[] {"1.0", "2", "3.0", ""}) {
        for (String method : new String[] {"initialize", "ping", "tools/list"}) {
          JsonObject params = method.equals("initialize") ? initializeParams() : new JsonObject();
          HttpResponse<Buffer> r = post(token, session, message(version, method, params));
          JsonObject body = r.bodyAsJsonObject();
          assertThat(body.getString("jsonrpc")).as(version + " " + method + ": " + body).isEqualTo("2.0");
          assertThat(body.containsKey("result")).as(version + " " + method + ": " + body).isFalse();
          assertThat(body.getJsonObject("error").getInteger("code")).as(version + " " + method).isEqualTo(-32600);
          assertThat(body.getJsonObject("error").getString("message")).contains("2.0").doesNotContain("Exception");
          assertThat(r.statusCode()).isEqualTo(400);
        }
      }
      JsonObject none = message("2.0", "ping", new JsonObject());
      none.remove("jsonrpc");
      JsonObject missing = post(token, session, none).bodyAsJsonObject();
      assertThat(missing.getString("jsonrpc")).isEqualTo("2.0");
      assertThat(missing.getJsonObject("error").getInteger("code")).isEqualTo(-32600);
      // and 2.0 is served
      JsonObject ping = post(token, session, message("2.0", "ping", new JsonObject())).bodyAsJsonObject();
      assertThat(ping.getString("jsonrpc")).isEqualTo("2.0");
      assertThat(ping.getJsonObject("result")).isEqualTo(new JsonObject());
    }
  }

  private static JsonObject initializeParams() {
    return new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
      .put("clientInfo", new JsonObject().put("name", "test").put("version", "1"));
  }

  private static JsonObject message(String version, String method, JsonObject params) {
    return new JsonObject().put("jsonrpc", version).put("id", 7).put("method", method).put("params", params);
  }

  private static HttpResponse<Buffer> post(String token, String session, JsonObject body) {
    HttpRequest<Buffer> req = http.post(host.gw().node().httpPort(), "127.0.0.1", "/mcp")
      .putHeader("accept", "application/json, text/event-stream").bearerTokenAuthentication(token);
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
