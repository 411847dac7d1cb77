package dev.conclave.e2e.swarm;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The node's HTTP API as the admin, blocking; every answer must be 2xx. */
public final class AdminHttp {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(3)).build();

  private final int port;
  private final String token;

  public AdminHttp(int port, String token) {
    this.port = port;
    this.token = token;
  }

  public JsonObject get(String path) {
    return call("GET", path, null);
  }

  public JsonObject post(String path, JsonObject body) {
    return call("POST", path, body);
  }

  public JsonObject task(String id) {
    return get("/api/v1/tasks/" + enc(id));
  }

  public JsonArray history(String taskId) {
    return get("/api/v1/tasks/" + enc(taskId) + "/history").getJsonArray("history");
  }

  /** Every event of a conversation's ledger, oldest first ({@code {seq, event}}). */
  public JsonArray conversation(String key) {
    JsonArray all = new JsonArray();
    long after = 0;
    while (true) {
      JsonObject page = get("/api/v1/gateway/conversations/" + enc(key) + "/events?after=" + after + "&limit=500");
      JsonArray events = page.getJsonArray("events");
      all.addAll(events);
      if (!page.getBoolean("hasMore", false) || events.isEmpty()) {
        return all;
      }
      after = events.getJsonObject(events.size() - 1).getLong("seq");
    }
  }

  private JsonObject call(String method, String path, JsonObject body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
      .header("authorization", "Bearer " + token).timeout(Duration.ofSeconds(20))
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.encode()));
    if (body != null) {
      b.header("content-type", "application/json");
    }
    try {
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() / 100 != 2) {
        throw new AssertionError(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
      }
      return r.body().isEmpty() ? new JsonObject() : new JsonObject(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
