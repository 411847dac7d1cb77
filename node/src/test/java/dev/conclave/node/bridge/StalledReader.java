package dev.conclave.node.bridge;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A bridge socket that stops reading once it is subscribed, with real TCP backpressure (the JDK's
 * WebSocket client reads only what is requested): a browser tab that hangs.
 */
final class StalledReader implements AutoCloseable {

  record Closed(int status, String reason) {
  }

  private final WebSocket ws;
  private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
  private final CompletableFuture<Closed> closed = new CompletableFuture<>();
  private volatile boolean reading = true;

  StalledReader(int port, String cookie, String address) {
    WebSocket.Listener listener = new WebSocket.Listener() {
      private final StringBuilder text = new StringBuilder();

      @Override
      public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
        frame(socket, data, last);
        return null;
      }

      @Override
      public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer data, boolean last) {
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        frame(socket, new String(bytes, java.nio.charset.StandardCharsets.UTF_8), last);
        return null;
      }

      private void frame(WebSocket socket, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
          if (text.indexOf("\"subscribed\":true") >= 0) {
            subscribed.complete(null);
          }
          text.setLength(0);
        }
        if (reading) {
          socket.request(1);
        }
      }

      @Override
      public CompletionStage<?> onClose(WebSocket socket, int status, String reason) {
        closed.complete(new Closed(status, reason));
        return null;
      }

      @Override
      public void onError(WebSocket socket, Throwable error) {
        closed.completeExceptionally(error);
      }
    };
    try {
      // a cookie counts on a socket only with the node's own Origin, as the console's page sends it
      ws = HttpClient.newHttpClient().newWebSocketBuilder().header("Cookie", cookie).header("Origin", "http://127.0.0.1:" + port)
        .buildAsync(URI.create("ws://127.0.0.1:" + port + "/eventbus/websocket"), listener).get(10, TimeUnit.SECONDS);
      ws.sendText("{\"type\":\"register\",\"address\":\"" + address + "\"}", true).get(10, TimeUnit.SECONDS);
      subscribed.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("could not subscribe", e);
    }
  }

  /** From now on nothing more is read. */
  void stall() {
    reading = false;
  }

  /** Reads everything queued, then reports how the node closed the socket. */
  Closed drainUntilClosed(long seconds) {
    reading = true;
    ws.request(Long.MAX_VALUE);
    try {
      return closed.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the socket was not closed within " + seconds + " s", e);
    }
  }

  @Override
  public void close() {
    ws.abort();
  }
}
