package dev.conclave.node.access;

import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A test's WebSocket, with exactly the given cookie, Origin and headers; its frames as JSON objects (SockJS's unwrapped). */
final class BrowserSocket implements AutoCloseable {
  private final WebSocketClient client;
  final WebSocket ws;
  private final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
  private final java.util.ArrayDeque<JsonObject> parsed = new java.util.ArrayDeque<>();

  private BrowserSocket(WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.ws = ws;
    ws.textMessageHandler(frames::add);
    ws.binaryMessageHandler(b -> frames.add(b.toString()));
  }

  /** The socket, or null when the node refused the upgrade. */
  static BrowserSocket open(MatrixFixture f, String path, String cookie, String origin, Map<String, String> headers) {
    WebSocketClient client = f.vertx.createWebSocketClient();
    // Vert.x sends an Origin of its own unless told not to, and then drops any Origin given
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(f.node.httpPort()).setURI(path)
      .setAllowOriginHeader(origin != null);
    if (cookie != null) {
      options.addHeader("cookie", cookie);
    }
    if (origin != null) {
      options.addHeader("origin", origin);
    }
    headers.forEach(options::addHeader);
    try {
      return client.connect(options).map(ws -> new BrowserSocket(client, ws)).await(15, TimeUnit.SECONDS);
    } catch (UpgradeRejectedException rejected) {
      client.close();
      if (rejected.getStatus() < 500) {
        return null;
      }
      throw new AssertionError("upgrade " + path + " failed: " + rejected, rejected);
    } catch (Exception e) {
      client.close();
      throw new AssertionError("upgrade " + path + " failed: " + e, e);
    }
  }

  /** The next message as it came, or null within 5 s. */
  String raw() {
    try {
      return frames.poll(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * The next JSON frame that matches (SockJS arrays unwrapped); frames before it are passed over. The
   * probes ask only for frames the node always sends (an answer or a refusal), so the bound is generous:
   * a loaded machine must not turn a late answer into a wrong verdict.
   */
  JsonObject next(Predicate<JsonObject> match) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      while (!parsed.isEmpty()) {
        JsonObject frame = parsed.poll();
        if (match.test(frame)) {
          return frame;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      String m;
      try {
        m = frames.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
      if (m != null && m.startsWith("a[")) {
        new JsonArray(m.substring(1)).forEach(item -> parsed.add(new JsonObject((String) item)));
      } else if (m != null && m.startsWith("{")) {
        parsed.add(new JsonObject(m));
      }
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
