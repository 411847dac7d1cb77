package dev.conclave.gateway.support;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A program's event-bus bridge socket on the raw WebSocket transport ({@code /eventbus/websocket}),
 * subscribing with a token in each register frame; it keeps every frame the node sent, so a test
 * can say what reached it and what did not. Blocking helpers; tests only.
 */
public final class BridgeClient implements AutoCloseable {

  private final WebSocketClient client;
  private final WebSocket ws;
  private final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  private final List<JsonObject> seen = java.util.Collections.synchronizedList(new ArrayList<>());
  private final CompletableFuture<Short> closed = new CompletableFuture<>();

  private BridgeClient(WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.ws = ws;
    // the bridge's own frames come as binary messages on this transport, the node's as text
    ws.textMessageHandler(text -> add(new JsonObject(text)));
    ws.binaryMessageHandler(bytes -> add(new JsonObject(bytes)));
    ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
  }

  private void add(JsonObject frame) {
    seen.add(frame);
    frames.add(frame);
  }

  public static BridgeClient connect(Vertx vertx, int port) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/eventbus/websocket");
    // the handlers are set as the socket opens, on its event loop, so no early frame is lost
    return GatewayFixture.await(client.connect(options).map(ws -> new BridgeClient(client, ws)));
  }

  /** Subscribes to {@code address} as the holder of {@code token}; waits for the node's subscribed marker. */
  public void subscribe(String address, String token) {
    ws.writeTextMessage(new JsonObject().put("type", "register").put("address", address)
      .put("headers", new JsonObject().put("authorization", "Bearer " + token)).encode());
    await(f -> "rec".equals(f.getString("type")) && address.equals(f.getString("address"))
      && f.getValue("body") instanceof JsonObject b && b.getBoolean("subscribed", false), 10);
  }

  /** The next frame that matches, skipping others; fails after {@code seconds}. */
  public JsonObject await(Predicate<JsonObject> match, double seconds) {
    return poll(match, seconds).orElseThrow(() -> new AssertionError("no matching bridge frame within " + seconds + " s; seen: " + seen));
  }

  public Optional<JsonObject> poll(Predicate<JsonObject> match, double seconds) {
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

  /** Every frame the node sent so far. */
  public List<JsonObject> seen() {
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  /** An error frame naming {@code address}. */
  public static Predicate<JsonObject> error(String address) {
    return f -> "err".equals(f.getString("type")) && address.equals(f.getString("address"));
  }

  public boolean isClosed() {
    return closed.isDone();
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
