package dev.conclave.e2e.console;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * The HTTP API of one node with a bearer token, blocking: how the test sets things up and checks
 * the ledger, beside the browser. Every call must answer the expected status.
 */
final class ConsoleApi {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(3)).build();

  private final int port;
  private final String token;

  ConsoleApi(int port, String token) {
    this.port = port;
    this.token = token;
  }

  /** The bearer token these calls carry. */
  String token() {
    return token;
  }

  JsonObject get(String path) {
    return call("GET", path, null, 200);
  }

  JsonObject get(String path, int expected) {
    return call("GET", path, null, expected);
  }

  JsonObject post(String path, JsonObject body, int expected) {
    return call("POST", path, body, expected);
  }

  /**
   * Registers an agent key as the member with this token does from their own machine
   * (ClientService.RegisterAgent over gRPC): a pending agent principal with the key's fingerprint,
   * owned by the member, which an admin approves. Returns its id.
   */
  static String registerPendingAgent(int grpcPort, String memberToken, String displayName, String fingerprint) {
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (dev.conclave.platform.testing.GrpcCalls grpc = new dev.conclave.platform.testing.GrpcCalls(vertx, grpcPort)) {
      var out = grpc.unary(dev.conclave.proto.coven.ClientServiceGrpcClient.RegisterAgent,
        dev.conclave.proto.coven.RegisterAgentRequest.newBuilder().setDisplayName(displayName).setFingerprint(fingerprint).build(),
        "Bearer " + memberToken);
      var registered = out.response().orElseThrow(() -> new AssertionError("RegisterAgent: " + out.status() + " " + out.message()));
      if (!"pending".equals(registered.getStatus())) {
        throw new AssertionError("a member's agent key should wait for an admin, got " + registered.getStatus());
      }
      return registered.getPrincipalId();
    } finally {
      try {
        vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception e) {
        // best effort: the test's answer is already in
      }
    }
  }

  /** A new approved principal ({@code client}: a member unless roles say otherwise; {@code agent}: owned by the caller). */
  String newPrincipal(String type, String displayName) {
    return post("/api/v1/gateway/principals", new JsonObject().put("type", type).put("displayName", displayName), 201)
      .getString("principalId");
  }

  /** A new {@code api} token of the principal. */
  String newToken(String principalId) {
    return post("/api/v1/gateway/principals/" + principalId + "/tokens", new JsonObject().put("ttlSeconds", 7200), 201)
      .getString("token");
  }

  /** Sends a message to the agent's own conversation; returns the request id. */
  String sendMessage(String agentId, String content) {
    JsonObject accepted = post("/api/v1/gateway/conversations/" + enc(agentId) + "/messages",
      new JsonObject().put("content", content).put("idempotencyKey", UUID.randomUUID().toString()), 202);
    return accepted.getString("requestId");
  }

  /** Every event of the conversation's ledger, oldest first ({"seq", "event"}). */
  JsonArray events(String key) {
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

  /** The newest seq of the conversation's ledger (0 when empty). */
  long lastSeq(String key) {
    JsonArray events = get("/api/v1/gateway/conversations/" + enc(key) + "/events?limit=1").getJsonArray("events");
    return events.isEmpty() ? 0 : events.getJsonObject(0).getLong("seq");
  }

  /** Whether the ledger holds a {@code done} event after {@code seq}. */
  boolean doneAfter(String key, long seq) {
    return events(key).stream().map(JsonObject.class::cast)
      .anyMatch(e -> e.getLong("seq") > seq && e.getJsonObject("event").containsKey("done"));
  }

  private JsonObject call(String method, String path, JsonObject body, int expected) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
      .header("authorization", "Bearer " + token).timeout(Duration.ofSeconds(20))
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.encode()));
    if (body != null) {
      b.header("content-type", "application/json");
    }
    try {
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != expected) {
        throw new AssertionError(method + " " + path + " on port " + port + ": expected " + expected + ", got " + r.statusCode() + " " + r.body());
      }
      return r.body().isBlank() ? new JsonObject() : new JsonObject(r.body());
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + " on port " + port + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String enc(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
