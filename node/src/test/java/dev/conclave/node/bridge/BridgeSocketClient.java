package dev.conclave.node.bridge;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A program's bridge socket on the raw WebSocket transport ({@code /eventbus/websocket}), speaking the
 * bridge's JSON frames: what a test needs to see exactly what the node sends and when it closes.
 */
final class BridgeSocketClient implements AutoCloseable {

  /** How the node closed the socket. */
  record Closed(Short status, String reason) {
  }

  final WebSocket ws;
  private final WebSocketClient client;
  private final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  final CompletableFuture<Closed> closed = new CompletableFuture<>();

  private BridgeSocketClient(WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.ws = ws;
    // the bridge's own frames come as binary messages on this transport, ours as text
    ws.textMessageHandler(text -> frames.add(new JsonObject(text)));
    ws.binaryMessageHandler(bytes -> frames.add(new JsonObject(bytes)));
    ws.closeHandler(v -> closed.complete(new Closed(ws.closeStatusCode(), ws.closeReason())));
  }

  static BridgeSocketClient connect(Vertx vertx, int port, Optional<String> cookie) {
    return connect(vertx, port, cookie, Optional.empty());
  }

  /** With {@code origin}, as a browser showing a page of that origin would open it. */
  static BridgeSocketClient connect(Vertx vertx, int port, Optional<String> cookie, Optional<String> origin) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/eventbus/websocket");
    cookie.ifPresent(c -> options.addHeader("cookie", c));
    origin.ifPresent(o -> options.addHeader("origin", o));
    try {
      // the handlers are set as the socket opens, on its event loop: set later, from this thread, a
      // frame or the close of a socket the node refuses at once (a limit) could come first and be lost
      return client.connect(options).map(ws -> new BridgeSocketClient(client, ws))
        .await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("could not open a bridge socket", e);
    }
  }

  /** With exactly {@code headers} on the upgrade and no Origin of the client's own: as a page, or a program, would open it. */
  static BridgeSocketClient withHeaders(Vertx vertx, int port, java.util.Map<String, String> headers) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/eventbus/websocket")
      // Vert.x adds an Origin of its own unless told not to, and then removes any Origin given
      .setAllowOriginHeader(headers.keySet().stream().anyMatch("origin"::equalsIgnoreCase));
    headers.forEach(options::addHeader);
    try {
      return client.connect(options).map(ws -> new BridgeSocketClient(client, ws))
        .await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("could not open a bridge socket", e);
    }
  }

  void register(String address) {
    frame(new JsonObject().put("type", "register").put("address", address));
  }

  void register(String address, String token) {
    frame(new JsonObject().put("type", "register").put("address", address)
      .put("headers", new JsonObject().put("authorization", "Bearer " + token)));
  }

  void frame(JsonObject frame) {
    ws.writeTextMessage(frame.encode());
  }

  /** The next frame that matches, skipping others; fails after {@code seconds}. */
  JsonObject await(Predicate<JsonObject> match, double seconds) {
    return poll(match, seconds).orElseThrow(() -> new AssertionError("no matching frame within " + seconds + " s"));
  }

  Optional<JsonObject> poll(Predicate<JsonObject> match, double seconds) {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return Optional.empty();
        }
        JsonObject f = frames.poll(left, TimeUnit.NANOSECONDS);
        if (f != null && match.test(f)) {
          return Optional.of(f);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The subscribed marker of {@code address}. */
  JsonObject awaitSubscribed(String address) {
    return await(f -> "rec".equals(f.getString("type")) && address.equals(f.getString("address"))
      && f.getValue("body") instanceof JsonObject b && b.getBoolean("subscribed", false), 10);
  }

  /** The error frame naming {@code address}. */
  JsonObject awaitRefusal(String address) {
    return await(f -> "err".equals(f.getString("type")) && address.equals(f.getString("address")), 10);
  }

  static Predicate<JsonObject> event(String address) {
    return f -> "rec".equals(f.getString("type")) && address.equals(f.getString("address"))
      && !(f.getValue("body") instanceof JsonObject b && b.containsKey("subscribed"));
  }

  Closed awaitClosed(double seconds) {
    try {
      return closed.get((long) (seconds * 1000), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the socket was not closed within " + seconds + " s", e);
    }
  }

  @Override
  public void close() {
    ws.close();
    client.close();
  }
}
