package dev.conclave.platform.server;

import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slow-loris on the HTTP port (issue 40, finding 6): a request whose headers or body trickle in,
 * a byte at a time well inside the idle timeout, is cut off at its deadline, which the trickle does
 * not restart; connections between requests, WebSockets and what answers in time are left alone.
 * The deadlines are short here (1 s for headers, 2 s for a body) and the idle timeout the default 60 s.
 */
class HttpDeadlinesTest {

  private static final long TRICKLE_MS = 250;
  /** Far more than a deadline, far less than the idle timeout: a connection still open then was not cut. */
  private static final long GIVE_UP_MS = 8_000;

  private static TestNode node;
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole())
      .env("CONCLAVE_HTTP_HEADER_SECONDS", "1")
      .env("CONCLAVE_HTTP_BODY_SECONDS", "2")
      .start();
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void headersThatTrickleAreCutAtTheirDeadline() throws Exception {
    double before = closed("header_timeout");
    try (Socket socket = connect()) {
      send(socket, "GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\n");
      Cut cut = trickle(socket, "x-slow: " + "a".repeat(200));
      assertThat(cut.afterMs()).as("cut after the header deadline (1 s), not the idle timeout").isBetween(800L, 4_000L);
      assertThat(cut.answer()).startsWith("HTTP/1.1 408");
    }
    assertThat(closed("header_timeout")).isGreaterThan(before);
  }

  @Test
  void aConnectionThatNeverSendsARequestIsCutAtTheHeaderDeadline() throws Exception {
    try (Socket socket = connect()) {
      Cut cut = trickle(socket, "");
      assertThat(cut.afterMs()).isBetween(800L, 4_000L);
    }
  }

  @Test
  void aBodyThatTricklesIsCutAtItsDeadlineWithOrWithoutCredentials() throws Exception {
    for (String credentials : new String[] {"", "authorization: Bearer " + node.adminToken() + "\r\n"}) {
      double before = closed("body_timeout");
      try (Socket socket = connect()) {
        send(socket, "POST /api/v1/whoami HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n"
          + credentials + "\r\n");
        Cut cut = trickle(socket, " ".repeat(200));
        assertThat(cut.afterMs()).as("cut after the body deadline (2 s)").isBetween(1_800L, 5_000L);
        assertThat(cut.answer()).startsWith("HTTP/1.1 408").contains("body_timeout");
      }
      assertThat(closed("body_timeout")).isGreaterThan(before);
    }
  }

  @Test
  void aKeptAliveConnectionMayIdleBetweenRequestsAndSlowButTimelyRequestsAreServed() throws Exception {
    try (Socket socket = connect()) {
      // headers in three parts over about 0.4 s of their 1 s, a body in two over about 0.5 s of its 2 s
      String head = "POST /api/v1/whoami HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer " + node.adminToken()
        + "\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n";
      int third = head.length() / 3;
      send(socket, head.substring(0, third));
      Thread.sleep(200);
      send(socket, head.substring(third, 2 * third));
      Thread.sleep(200);
      send(socket, head.substring(2 * third));
      send(socket, "{");
      Thread.sleep(500);
      send(socket, "}");
      String first = readResponse(socket);
      assertThat(first).startsWith("HTTP/1.1 ").doesNotContain("408");
      // idle well past the header deadline: only the idle timeout applies between requests
      Thread.sleep(2_500);
      send(socket, "GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
      assertThat(readResponse(socket)).contains("HTTP/1.1 200");
    }
  }

  @Test
  void aWebSocketOutlivesBothDeadlines() throws Exception {
    WebSocketClient client = vertx.createWebSocketClient();
    try {
      WebSocket ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.httpPort())
        .setURI("/eventbus/websocket")).await(10, TimeUnit.SECONDS);
      AtomicBoolean closed = new AtomicBoolean();
      ws.closeHandler(v -> closed.set(true));
      // a frame now and then, as a client's pings would be
      for (int i = 0; i < 16; i++) {
        Thread.sleep(TRICKLE_MS);
        ws.writeTextMessage("{\"type\":\"ping\"}");
      }
      assertThat(closed.get()).as("the socket was closed after " + 16 * TRICKLE_MS + " ms").isFalse();
      ws.close();
    } finally {
      client.close();
    }
  }

  /** How a trickled request ended: when the node closed the connection, and what it answered first. */
  record Cut(long afterMs, String answer) {
  }

  /** Writes {@code text} a byte at a time (then keeps writing spaces) until the node closes the connection. */
  private static Cut trickle(Socket socket, String text) throws Exception {
    long start = System.currentTimeMillis();
    InputStream in = socket.getInputStream();
    OutputStream out = socket.getOutputStream();
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    int i = 0;
    while (System.currentTimeMillis() - start < GIVE_UP_MS) {
      socket.setSoTimeout((int) TRICKLE_MS);
      try {
        int b = in.read();
        if (b < 0) {
          return new Cut(System.currentTimeMillis() - start, answer.toString(StandardCharsets.ISO_8859_1));
        }
        answer.write(b);
        continue;
      } catch (SocketTimeoutException e) {
        // nothing yet: one more byte
      } catch (SocketException e) {
        return new Cut(System.currentTimeMillis() - start, answer.toString(StandardCharsets.ISO_8859_1));
      }
      try {
        if (!text.isEmpty()) {
          out.write(i < text.length() ? text.charAt(i) : ' ');
          out.flush();
          i++;
        }
      } catch (IOException e) {
        return new Cut(System.currentTimeMillis() - start, answer.toString(StandardCharsets.ISO_8859_1));
      }
    }
    throw new AssertionError("the node kept the connection open for " + GIVE_UP_MS + " ms while it trickled; it answered: "
      + answer.toString(StandardCharsets.ISO_8859_1));
  }

  private static Socket connect() throws IOException {
    return new Socket("127.0.0.1", node.httpPort());
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** Reads one response's head (and what came with it) on a kept-alive connection. */
  private static String readResponse(Socket socket) throws IOException {
    socket.setSoTimeout(5_000);
    InputStream in = socket.getInputStream();
    StringBuilder text = new StringBuilder();
    while (!text.toString().contains("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      text.append((char) b);
    }
    return text.toString();
  }

  private static double closed(String reason) {
    var c = node.runtime().context().metrics().find(MetricNames.EDGE_CONNECTIONS_CLOSED).tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }
}
