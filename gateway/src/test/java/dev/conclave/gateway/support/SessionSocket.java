package dev.conclave.gateway.support;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A session protocol client on a real WebSocket (Vert.x WebSocketClient). Blocking helpers; tests only. */
public final class SessionSocket implements AutoCloseable {

  private final WebSocketClient client;
  private final WebSocket ws;
  private final BlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  private final CompletableFuture<Short> closed = new CompletableFuture<>();

  private SessionSocket(WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.ws = ws;
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
  }

  public static SessionSocket open(Vertx vertx, int port, String token) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/api/v1/sessions");
    if (token != null) {
      options.addHeader("authorization", "Bearer " + token);
    }
    return new SessionSocket(client, GatewayFixture.await(client.connect(options)));
  }

  /**
   * Opens it with exactly {@code headers} on the upgrade (a cookie, an {@code Origin}, an
   * authorization) and no Origin of the client's own: as a page of that origin, or a program, would.
   * Fails with Vert.x's {@code UpgradeRejectedException} (status and body) when the node refuses.
   */
  public static io.vertx.core.Future<SessionSocket> connect(Vertx vertx, int port, java.util.Map<String, String> headers) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/api/v1/sessions")
      // Vert.x adds an Origin of its own unless told not to, and then removes any Origin given
      .setAllowOriginHeader(headers.keySet().stream().anyMatch("origin"::equalsIgnoreCase));
    headers.forEach(options::addHeader);
    return client.connect(options).map(ws -> new SessionSocket(client, ws)).onFailure(e -> client.close());
  }

  public void submit(String id, JsonObject op) {
    GatewayFixture.await(ws.writeTextMessage(new JsonObject().put("id", id).put("op", op).encode()));
  }

  public void raw(String text) {
    GatewayFixture.await(ws.writeTextMessage(text));
  }

  public static JsonObject op(String type) {
    return new JsonObject().put("type", type);
  }

  public static JsonObject userInput(String text) {
    return op("user_input").put("items", new JsonArray().add(new JsonObject().put("type", "text").put("text", text)));
  }

  /** Configures the session on {@code agentId}; returns session_configured's msg. */
  public JsonObject configure(String agentId) {
    submit("cfg", op("configure_session").put("agent_id", agentId));
    return expect("session_configured").getJsonObject("msg");
  }

  /** The next event frame, waiting up to 10 s. */
  public JsonObject next() {
    try {
      JsonObject f = frames.poll(10, TimeUnit.SECONDS);
      if (f == null) {
        throw new AssertionError("no session event within 10 s");
      }
      return f;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next frame, which must be of {@code type}. */
  public JsonObject expect(String type) {
    JsonObject f = next();
    if (!type.equals(f.getJsonObject("msg").getString("type"))) {
      throw new AssertionError("expected " + type + ", got " + f.encode());
    }
    return f;
  }

  /** Frames until one of {@code type} (inclusive). */
  public List<JsonObject> until(String type) {
    List<JsonObject> out = new ArrayList<>();
    while (true) {
      JsonObject f = next();
      out.add(f);
      if (type.equals(f.getJsonObject("msg").getString("type"))) {
        return out;
      }
    }
  }

  public JsonObject poll(long ms) {
    try {
      return frames.poll(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  public boolean isClosed() {
    return closed.isDone();
  }

  public short awaitClose() {
    try {
      return closed.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the socket was not closed", e);
    }
  }

  @Override
  public void close() {
    try {
      ws.close();
    } catch (RuntimeException ignored) {
      // already closed
    }
    client.close();
  }
}
