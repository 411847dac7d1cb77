package dev.conclave.swarm.support;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import static dev.conclave.platform.testing.Await.await;

/**
 * Real HTTP calls against a coordinator node, blocking (tests only). Calls carry the given bearer
 * token (the admin's by default) unless other headers are given.
 */
public final class SwarmApi implements AutoCloseable {

  private final Vertx vertx;
  private final WebClient client;
  private final int port;
  private final String token;

  public SwarmApi(int port, String token) {
    this.vertx = Vertx.vertx();
    this.client = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(128));
    this.port = port;
    this.token = token;
  }

  /** The same node, as another principal. */
  public SwarmApi as(String otherToken) {
    return new SwarmApi(port, otherToken);
  }

  public int port() {
    return port;
  }

  public Reply post(String path, JsonObject body) {
    return await(postAsync(path, body));
  }

  public Reply get(String path) {
    return await(send(HttpMethod.GET, path, null, Map.of()));
  }

  public Future<Reply> postAsync(String path, JsonObject body) {
    return send(HttpMethod.POST, path, body == null ? null : body.toBuffer(), Map.of());
  }

  /** A raw request: body bytes as given, headers as given (no bearer token when headers name their own auth). */
  public Future<Reply> send(HttpMethod method, String path, Buffer body, Map<String, String> headers) {
    HttpRequest<Buffer> request = client.request(method, port, "127.0.0.1", path);
    if (token != null && !headers.containsKey("X-Swarm-Signature") && !headers.containsKey("authorization")) {
      request.putHeader("authorization", "Bearer " + token);
    }
    headers.forEach(request::putHeader);
    if (body != null) {
      request.putHeader("content-type", "application/json");
    }
    Future<HttpResponse<Buffer>> sent = body == null ? request.send() : request.sendBuffer(body);
    return sent.map(r -> new Reply(r.statusCode(), MultiMap.caseInsensitiveMultiMap().addAll(r.headers()),
      r.body() == null ? "" : r.bodyAsString()));
  }

  /**
   * The request signature of the agent protocol: HMAC-SHA256, keyed by the agent's secret, of the
   * timestamp, method, target and the body's SHA-256, one per line, in hex.
   */
  public static String signature(String secret, String timestamp, String method, String target, byte[] body) {
    try {
      String bodyHash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal((timestamp + "\n" + method + "\n" + target + "\n" + bodyHash)
        .getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A request signed by {@code agent} with {@code secret} at {@code at}, with no bearer token. */
  public Reply signed(String agent, String secret, HttpMethod method, String target, JsonObject body, Instant at) {
    byte[] bytes = body == null ? new byte[0] : body.toBuffer().getBytes();
    String ts = at.toString();
    return await(send(method, target, body == null ? null : Buffer.buffer(bytes), Map.of(
      "X-Swarm-Agent", agent, "X-Swarm-Timestamp", ts, "X-Swarm-Signature", signature(secret, ts, method.name(), target, bytes))));
  }

  // ---- protocol shorthands (all with protocolVersion 1.0) -----------------------------------

  public static JsonObject v1() {
    return new JsonObject().put("protocolVersion", "1.0");
  }

  public static JsonObject agentSpec(String id, List<String> skills) {
    return new JsonObject().put("id", id).put("name", "agent " + id).put("type", "claude-code")
      .put("capabilities", new JsonObject().put("skills", new JsonArray(skills)).put("maxTaskMinutes", 60)
        .put("canRunTests", true).put("canRunBuild", true).put("canAccessBrowser", false))
      .put("machine", new JsonObject().put("id", "m1").put("hostname", "localhost").put("pid", 4242));
  }

  public Reply register(String id, List<String> skills) {
    return post("/api/v1/agents/register", v1().put("operation", "REGISTER").put("agent", agentSpec(id, skills)));
  }

  public Reply heartbeat(String agentId, String status) {
    return post("/api/v1/agents/" + agentId + "/heartbeat", v1().put("agentId", agentId).put("status", status));
  }

  public Reply claim(String agentId) {
    return claim(agentId, null);
  }

  public Reply claim(String agentId, JsonObject filter) {
    JsonObject body = v1().put("agentId", agentId);
    if (filter != null) {
      body.put("filter", filter);
    }
    return post("/api/v1/tasks/claim", body);
  }

  public Reply progress(String agentId, String taskId, int percent) {
    return post("/api/v1/tasks/" + taskId + "/progress", v1().put("agentId", agentId).put("progress",
      new JsonObject().put("phase", "implementing").put("percentComplete", percent).put("description", "working")));
  }

  public static JsonObject result(String summary, String... learnings) {
    return new JsonObject().put("filesCreated", new JsonArray()).put("filesModified", new JsonArray().add("src/a.ts"))
      .put("filesDeleted", new JsonArray()).put("summary", summary).put("learnings", new JsonArray(List.of(learnings)));
  }

  public Reply complete(String agentId, String taskId) {
    return complete(agentId, taskId, result("done"), null);
  }

  public Reply complete(String agentId, String taskId, JsonObject result, JsonObject metrics) {
    JsonObject body = v1().put("agentId", agentId).put("result", result);
    if (metrics != null) {
      body.put("qualityMetrics", metrics);
    }
    return post("/api/v1/tasks/" + taskId + "/complete", body);
  }

  public Reply fail(String agentId, String taskId, String type, boolean recoverable) {
    return post("/api/v1/tasks/" + taskId + "/fail", v1().put("agentId", agentId).put("failure",
      new JsonObject().put("type", type).put("message", "it broke").put("details", "stack").put("recoverable", recoverable)));
  }

  public Reply acquire(String agentId, String taskId, String file, long durationMs) {
    return post("/api/v1/leases/acquire", v1().put("agentId", agentId).put("taskId", taskId).put("filePath", file)
      .put("durationMs", durationMs));
  }

  public Reply release(String agentId, String file) {
    return post("/api/v1/leases/release", v1().put("agentId", agentId).put("filePath", file));
  }

  /** Creates tasks through the task management API (admin). */
  public Reply createTasks(JsonArray tasks) {
    return post("/api/v1/tasks", new JsonObject().put("tasks", tasks));
  }

  public JsonObject task(String id) {
    Reply reply = get("/api/v1/tasks/" + id);
    if (reply.status() != 200) {
      throw new IllegalStateException("no task " + id + ": " + reply);
    }
    return reply.json();
  }

  @Override
  public void close() {
    client.close();
    vertx.close();
  }
}
