package dev.conclave.node.bridge;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.contract.Addresses;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.platform.bridge.EventBusBridge;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge takes inbound frames of at most 1 MiB (docs/dashboard.md): a larger one closes the
 * socket on every transport, whether it came as one WebSocket frame, as a message in several
 * WebSocket frames, inside SockJS's framing, or over SockJS's XHR transport; the raw WebSocket closes
 * with 1009 ("message too big"), a SockJS session first gets an {@code err} frame
 * {@code frame_too_large} (its close code is SockJS's own). A frame under the limit is served. None of
 * it is an ERROR in the log.
 */
class BridgeFrameLimitTest {

  private static final int MIB = 1024 * 1024;

  private static TestNode node;
  private static Vertx vertx;
  private static WebSocketClient ws;
  private static WebClient http;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new GatewayRole()).start();
    vertx = Vertx.vertx();
    // a client that sends a big message as one frame, unless told to fragment it
    ws = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(8 * MIB).setMaxMessageSize(8 * MIB));
    // a connection per request: SockJS's XHR polling closes the connection a poll came on when its session closes
    http = WebClient.create(vertx, new io.vertx.ext.web.client.WebClientOptions().setKeepAlive(false));
  }

  @AfterAll
  static void stop() {
    http.close();
    ws.close();
    vertx.close();
    node.close();
  }

  @BeforeEach
  void watchTheLog() {
    lines.start();
    root.addAppender(lines);
  }

  @AfterEach
  void nothingAtError() {
    root.detachAppender(lines);
    assertThat(lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
      .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage()
        + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName()))).isEmpty();
  }

  @Test
  void a_2_MiB_frame_closes_the_raw_socket_with_1009() throws Exception {
    Socket socket = open("/eventbus/websocket");
    socket.ws.writeTextMessage(frame(2 * MIB));
    assertThat(socket.closed.get(10, TimeUnit.SECONDS)).isEqualTo(EventBusBridge.CLOSE_TOO_BIG);
  }

  @Test
  void a_2_MiB_xhr_send_body_is_refused_with_413() {
    String session = "/eventbus/123/" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(post(session + "/xhr", null).bodyAsString()).startsWith("o");
    HttpResponse<Buffer> huge = post(session + "/xhr_send", new JsonArray().add(frame(MIB)).add(frame(MIB)).add(frame(MIB))
      .add(frame(MIB)).add(frame(MIB)).encode());
    assertThat(huge.statusCode()).isEqualTo(413);
  }

  @Test
  void a_2_MiB_message_in_frames_under_the_limit_closes_the_raw_socket_with_1009() throws Exception {
    Socket socket = open("/eventbus/websocket");
    String big = frame(2 * MIB);
    int half = big.length() / 2;
    socket.ws.writeFrame(WebSocketFrame.textFrame(big.substring(0, half), false));
    socket.ws.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(big.substring(half)), true));
    assertThat(socket.closed.get(10, TimeUnit.SECONDS)).isEqualTo(EventBusBridge.CLOSE_TOO_BIG);
  }

  @Test
  void a_frame_under_the_limit_is_served() throws Exception {
    Socket socket = open("/eventbus/websocket");
    socket.ws.writeTextMessage(frame(MIB - 1024));
    String address = Addresses.PRESENCE_EVENTS;
    socket.ws.writeTextMessage(new JsonObject().put("type", "register").put("address", address).encode());
    // refused (nobody authenticated), but answered: the socket still serves
    String answer = socket.next(10);
    assertThat(answer).contains("\"address\":\"" + address + "\"");
    assertThat(socket.closed.isDone()).isFalse();
    socket.ws.close();
  }

  @Test
  void a_2_MiB_frame_in_sockjs_framing_closes_the_socket() throws Exception {
    Socket socket = open("/eventbus/123/" + UUID.randomUUID().toString().substring(0, 8) + "/websocket");
    assertThat(socket.next(10)).isEqualTo("o");
    // SockJS framing of a 2 MiB bridge frame, in WebSocket frames under the 1 MiB WebSocket limit
    String big = new JsonArray().add(frame(2 * MIB)).encode();
    int third = big.length() / 3;
    socket.ws.writeFrame(WebSocketFrame.textFrame(big.substring(0, third), false));
    socket.ws.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(big.substring(third, 2 * third)), false));
    socket.ws.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(big.substring(2 * third)), true));
    // SockJS sessions close with SockJS's own code (Vert.x 5.0.7 offers no other): the reason comes first, as a frame
    assertThat(socket.next(10)).startsWith("a[").contains("frame_too_large");
    assertThat(socket.next(10)).startsWith("c[");
    assertThat(socket.closed.get(10, TimeUnit.SECONDS)).isNotNull();
  }

  @Test
  void sockjs_xhr_transport_serves_frames_and_closes_on_a_2_MiB_one() {
    String session = "/eventbus/123/" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(post(session + "/xhr", null).bodyAsString()).startsWith("o");
    HttpResponse<Buffer> sent = post(session + "/xhr_send", new JsonArray().add(new JsonObject().put("type", "register")
      .put("address", Addresses.PRESENCE_EVENTS).encode()).encode());
    assertThat(sent.statusCode()).as(sent.bodyAsString()).isEqualTo(204);
    assertThat(post(session + "/xhr", null).bodyAsString()).startsWith("a[").contains(Addresses.PRESENCE_EVENTS);
    HttpResponse<Buffer> big = post(session + "/xhr_send", new JsonArray().add(frame(2 * MIB)).encode());
    assertThat(big.statusCode()).as(big.bodyAsString()).isLessThan(500);
    assertThat(post(session + "/xhr", null).bodyAsString()).startsWith("a[").contains("frame_too_large");
    assertThat(post(session + "/xhr", null).bodyAsString()).startsWith("c[");
    // and the session is gone
    assertThat(post(session + "/xhr_send", new JsonArray().add("{\"type\":\"ping\"}").encode()).statusCode()).isEqualTo(404);
  }

  /** A bridge frame of {@code size} bytes: a ping padded out. */
  private static String frame(int size) {
    String head = "{\"type\":\"ping\",\"pad\":\"";
    return head + "z".repeat(size - head.length() - 2) + "\"}";
  }

  private static HttpResponse<Buffer> post(String path, String body) {
    var request = http.post(node.httpPort(), "127.0.0.1", path).putHeader("content-type", "text/plain");
    try {
      return (body == null ? request.send() : request.sendBuffer(Buffer.buffer(body))).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** A socket with what the node sent on it and how it closed. */
  private record Socket(WebSocket ws, LinkedBlockingQueue<String> received, CompletableFuture<Short> closed) {
    String next(int seconds) throws InterruptedException {
      String m = received.poll(seconds, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("nothing within " + seconds + " s (closed: " + closed.getNow(null) + ")");
      }
      return m;
    }
  }

  private static Socket open(String uri) throws Exception {
    LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
    CompletableFuture<Short> closed = new CompletableFuture<>();
    WebSocket socket = ws.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.httpPort()).setURI(uri))
      // the handlers go on as the socket opens, before anything can arrive
      .onSuccess(s -> {
        s.textMessageHandler(received::add);
        s.binaryMessageHandler(b -> received.add(b.toString()));
        s.closeHandler(v -> closed.complete(s.closeStatusCode()));
        s.exceptionHandler(e -> { });
      })
      .await(10, TimeUnit.SECONDS);
    return new Socket(socket, received, closed);
  }
}
