package dev.conclave.packs.support;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** A blocking MCP client for tests: Streamable HTTP, one JSON-RPC message per POST. */
public final class McpClient implements AutoCloseable {

  /** An answer: HTTP status and body (JSON when the endpoint answered JSON-RPC). */
  public record Answer(int status, String body) {

    public JsonObject json() {
      return new JsonObject(body);
    }
  }

  private final WebClient http;
  private final int port;

  public McpClient(Vertx vertx, int port) {
    this.http = WebClient.create(vertx);
    this.port = port;
  }

  /** {@code initialize} with {@code token}: the answer, with the session id in the body's {@code _session} when one was opened. */
  public Answer initialize(String token) {
    HttpResponse<Buffer> r = post(token, null, request("initialize", new JsonObject().put("protocolVersion", "2025-11-25")
      .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "test").put("version", "1"))));
    String session = r.getHeader("mcp-session-id");
    String body = r.bodyAsString();
    if (session != null && r.statusCode() == 200) {
      return new Answer(200, new JsonObject(body).put("_session", session).encode());
    }
    return new Answer(r.statusCode(), body);
  }

  /** Opens a session with {@code token}; fails the test when the endpoint refuses. */
  public String session(String token) {
    Answer a = initialize(token);
    if (a.status() != 200) {
      throw new AssertionError("initialize refused: " + a.status() + " " + a.body());
    }
    return a.json().getString("_session");
  }

  /** One JSON-RPC request in {@code session}. */
  public Answer rpc(String token, String session, String method, JsonObject params) {
    HttpResponse<Buffer> r = post(token, session, request(method, params));
    return new Answer(r.statusCode(), r.bodyAsString());
  }

  /** The names {@code tools/list} shows. */
  public List<String> toolNames(String token, String session) {
    Answer a = rpc(token, session, "tools/list", new JsonObject());
    if (a.status() != 200) {
      throw new AssertionError("tools/list refused: " + a.status() + " " + a.body());
    }
    JsonArray tools = a.json().getJsonObject("result").getJsonArray("tools");
    return tools.stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }

  /** {@code tools/call}. */
  public Answer call(String token, String session, String tool, JsonObject arguments) {
    return rpc(token, session, "tools/call", new JsonObject().put("name", tool).put("arguments", arguments));
  }

  /** {@code tools/call} with more request headers (a {@code traceparent}). */
  public Answer call(String token, String session, String tool, JsonObject arguments, java.util.Map<String, String> headers) {
    HttpResponse<Buffer> r = post(token, session, request("tools/call", new JsonObject().put("name", tool).put("arguments", arguments)),
      headers);
    return new Answer(r.statusCode(), r.bodyAsString());
  }

  private HttpResponse<Buffer> post(String token, String session, JsonObject body) {
    return post(token, session, body, java.util.Map.of());
  }

  private HttpResponse<Buffer> post(String token, String session, JsonObject body, java.util.Map<String, String> headers) {
    HttpRequest<Buffer> req = http.post(port, "127.0.0.1", "/mcp").putHeader("accept", "application/json, text/event-stream")
      .bearerTokenAuthentication(token);
    headers.forEach(req::putHeader);
    if (session != null) {
      req.putHeader("mcp-session-id", session);
    }
    try {
      return req.sendJsonObject(body).await(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static JsonObject request(String method, JsonObject params) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", method).put("params", params);
  }

  @Override
  public void close() {
    http.close();
  }
}
