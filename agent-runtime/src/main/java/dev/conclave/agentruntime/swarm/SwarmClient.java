package dev.conclave.agentruntime.swarm;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Jetpack protocol over the coordinator's HTTP API ({@code /api/v1}, docs/swarm.md), with the
 * agent's own bearer token: the token that registers the agent with the gateway also registers it
 * with the coordinator, so one principal owns the agent in both. Every request carries
 * {@code protocolVersion: "1.0"}. An answer other than 2xx fails with a {@link SwarmCallException}
 * holding the problem's status and code; a call that reaches nobody fails with status 0. Each call is
 * logged (the spec's "log all operations").
 */
public final class SwarmClient {

  private static final Logger LOG = LoggerFactory.getLogger(SwarmClient.class);
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final String base;
  private final String token;

  public SwarmClient(Vertx vertx, URI base, String token) {
    this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(10_000)
      .setIdleTimeout((int) CALL_TIMEOUT.toSeconds()).setIdleTimeoutUnit(TimeUnit.SECONDS));
    this.base = base.toString().replaceAll("/+$", "");
    this.token = token;
  }

  public String base() {
    return base;
  }

  public Future<JsonObject> register(JsonObject agent) {
    return post("/api/v1/agents/register", new JsonObject().put("operation", "REGISTER").put("agent", agent));
  }

  public Future<JsonObject> heartbeat(String agentId, JsonObject body) {
    return post("/api/v1/agents/" + path(agentId) + "/heartbeat", body.put("agentId", agentId));
  }

  public Future<JsonObject> claim(String agentId) {
    return post("/api/v1/tasks/claim", new JsonObject().put("agentId", agentId));
  }

  /** Beyond the spec: the task becomes a conversation in the gateway ({@code swarm:<taskId>}). */
  public Future<JsonObject> openConversation(String agentId, String taskId) {
    return post("/api/v1/tasks/" + path(taskId) + "/conversation", new JsonObject().put("agentId", agentId));
  }

  public Future<JsonObject> progress(String agentId, String taskId, JsonObject progress) {
    return post("/api/v1/tasks/" + path(taskId) + "/progress", new JsonObject().put("agentId", agentId).put("progress", progress));
  }

  public Future<JsonObject> complete(String agentId, String taskId, JsonObject result, JsonObject qualityMetrics) {
    JsonObject body = new JsonObject().put("agentId", agentId).put("result", result);
    if (qualityMetrics != null) {
      body.put("qualityMetrics", qualityMetrics);
    }
    return post("/api/v1/tasks/" + path(taskId) + "/complete", body);
  }

  public Future<JsonObject> fail(String agentId, String taskId, JsonObject failure) {
    return post("/api/v1/tasks/" + path(taskId) + "/fail", new JsonObject().put("agentId", agentId).put("failure", failure));
  }

  public Future<JsonObject> acquireLease(String agentId, String taskId, String filePath, Duration duration) {
    return post("/api/v1/leases/acquire", new JsonObject().put("agentId", agentId).put("taskId", taskId).put("filePath", filePath)
      .put("durationMs", duration.toMillis()));
  }

  public Future<JsonObject> releaseLease(String agentId, String filePath) {
    return post("/api/v1/leases/release", new JsonObject().put("agentId", agentId).put("filePath", filePath));
  }

  public Future<Void> close() {
    return http.close();
  }

  private Future<JsonObject> post(String path, JsonObject body) {
    body.put("protocolVersion", "1.0");
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(base + path)
      .putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
      .putHeader(HttpHeaders.ACCEPT, "application/json");
    String what = operation(path);
    return http.request(options)
      .compose(req -> req.send(body.toBuffer()))
      .compose(resp -> resp.body().map(buf -> answer(what, resp.statusCode(), resp.getHeader("Retry-After"), buf)))
      .recover(err -> {
        SwarmCallException e = err instanceof SwarmCallException s ? s
          : new SwarmCallException(0, "unreachable", "the coordinator at " + base + " could not be reached: " + err.getMessage(), Optional.empty());
        LOG.info("swarm {} failed status={} code={} detail={}", what, e.status(), e.code(), e.getMessage());
        return Future.failedFuture(e);
      });
  }

  private static JsonObject answer(String what, int status, String retryAfter, Buffer body) {
    JsonObject json;
    try {
      json = body.length() == 0 ? new JsonObject() : body.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      json = new JsonObject().put("detail", body.toString(StandardCharsets.UTF_8));
    }
    if (status / 100 == 2) {
      LOG.debug("swarm {} answered {}", what, status);
      return json;
    }
    Optional<Duration> wait = Optional.empty();
    if (retryAfter != null) {
      try {
        wait = Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(retryAfter.trim()))));
      } catch (NumberFormatException ignored) {
        // a date: not sent by the coordinator; the caller's own backoff applies
      }
    }
    throw new SwarmCallException(status, json.getString("code", "http_" + status), json.getString("detail", "HTTP " + status), wait);
  }

  private static String operation(String path) {
    String p = path.replaceFirst("^/api/v1/", "");
    return p.replaceAll("/[^/]+/(heartbeat|progress|complete|fail|conversation)$", "/$1");
  }

  private static String path(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
