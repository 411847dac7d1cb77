package dev.conclave.node.fuzz;

import dev.conclave.contract.Addresses;
import dev.conclave.node.fuzz.FuzzNode.Caller;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * WebSocket frames on the event-bus bridge ({@code /eventbus}): its raw WebSocket transport and
 * SockJS's, with generated frames (mutations of register, unregister, send, publish and ping frames:
 * wrong types, odd addresses, hostile headers and tokens; text that is not JSON, JSON that is not an
 * object, binary garbage, oversized messages). After them comes a well-formed frame that must still
 * be answered (or the socket must have been closed); no frame the node sends may name a Java class
 * or carry a 5xx failure code, no close may be 1011, and nothing may be logged with a stack trace or
 * at ERROR.
 */
class BridgeFuzzTest {

  private static final String SURFACE = "websocket";
  private static final AtomicInteger SENTINELS = new AtomicInteger();

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();
  private final WebSocketClient client = f.vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(1024 * 1024)
    .setMaxMessageSize(8 * 1024 * 1024));

  /** One frame as sent: text or binary. */
  record WsFrame(boolean binary, byte[] content) {
    @Override
    public String toString() {
      return (binary ? "binary " : "text ") + Hostile.show(content);
    }
  }

  /** One generated socket: its transport ({@code sockjs}: SockJS framing, else the raw bridge) and frames. */
  record WsCase(boolean sockjs, boolean wrap, List<WsFrame> frames) {
    @Override
    public String toString() {
      return (sockjs ? "SockJS websocket" + (wrap ? "" : " (frames not in SockJS arrays)") : "raw /eventbus/websocket") + " frames " + frames;
    }
  }

  @Property(tries = 1000, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void theBridgeSurvivesMalformedFramesAndKeepsAnswering(@ForAll("sockets") WsCase c) {
    strays.collect(f.logs);
    String where = c.sockjs() ? "sockjs" : "raw";
    Findings found = new Findings(SURFACE, where, c);
    LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
    CompletableFuture<String> closed = new CompletableFuture<>();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(f.node.httpPort())
      .setURI(c.sockjs() ? "/eventbus/123/" + Integer.toHexString(SENTINELS.incrementAndGet() + 0x10000000) + "/websocket" : "/eventbus/websocket");
    WebSocket ws;
    try {
      ws = client.connect(options).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      found.add("could not open a socket", e.toString());
      found.close();
      return;
    }
    try {
      ws.textMessageHandler(received::add);
      ws.binaryMessageHandler(b -> received.add(b.toString(StandardCharsets.UTF_8)));
      ws.closeHandler(v -> closed.complete(ws.closeStatusCode() + " " + ws.closeReason()));
      ws.exceptionHandler(e -> { });
      for (WsFrame frame : c.frames()) {
        if (closed.isDone()) {
          break;
        }
        byte[] content = c.sockjs() && c.wrap() && !frame.binary() ? sockjs(frame.content()) : frame.content();
        try {
          if (frame.binary()) {
            ws.writeBinaryMessage(Buffer.buffer(content));
          } else {
            ws.writeTextMessage(new String(content, StandardCharsets.UTF_8));
          }
        } catch (RuntimeException e) {
          break; // closed under us
        }
      }
      String sentinel = "conclave.events.fz-sentinel-" + SENTINELS.incrementAndGet();
      if (!closed.isDone()) {
        String register = new JsonObject().put("type", "register").put("address", sentinel)
          .put("headers", new JsonObject().put("authorization", "Bearer " + f.tokens.get(Caller.ADMIN))).encode();
        try {
          ws.writeTextMessage(c.sockjs() ? new JsonArray().add(register).encode() : register);
        } catch (RuntimeException ignored) {
          // closed under us: judged below
        }
      }
      boolean answered = false;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!answered && !closed.isDone() && System.nanoTime() < deadline) {
        String m = received.poll(20, TimeUnit.MILLISECONDS);
        if (m != null) {
          answered = judge(m, sentinel, where, found);
        }
      }
      for (String m; (m = received.poll()) != null; ) {
        judge(m, sentinel, where, found);
      }
      if (!answered && !closed.isDone()) {
        found.add("the socket stopped answering well-formed frames", "no answer to a register frame within 5 s");
      }
      if (closed.isDone()) {
        String how = closed.getNow("");
        if (how.startsWith("1011")) {
          found.add("socket closed with 1011 (internal error)", how);
        }
        found.leaks("close reason", how);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        ws.close();
      } catch (RuntimeException ignored) {
        // already closed
      }
    }
    found.logs(f.logs.drain());
    found.close();
  }

  /** Checks one message from the node; true when it answers the sentinel. */
  private static boolean judge(String message, String sentinel, String where, Findings found) {
    found.leaks("frame", message);
    boolean answers = false;
    for (JsonObject frame : frames(message)) {
      Object code = frame.getValue("failureCode");
      if (code instanceof Number n && n.intValue() >= 500) {
        found.add("an error frame with failureCode " + n, frame.encode());
      }
      if (sentinel.equals(frame.getValue("address"))) {
        answers = true;
      }
    }
    return answers;
  }

  /** The bridge frames in a message: the JSON object itself, or SockJS's {@code a[...]} of encoded frames. */
  private static List<JsonObject> frames(String message) {
    try {
      if (message.startsWith("a[")) {
        return new JsonArray(message.substring(1)).stream().map(s -> new JsonObject(String.valueOf(s))).toList();
      }
      if (message.startsWith("{")) {
        return List.of(new JsonObject(message));
      }
    } catch (RuntimeException ignored) {
      // not ours to parse
    }
    return List.of();
  }

  private static byte[] sockjs(byte[] frame) {
    return new JsonArray().add(new String(frame, StandardCharsets.UTF_8)).encode().getBytes(StandardCharsets.UTF_8);
  }

  @AfterProperty
  void nodeIsStillWell() {
    try {
      strays.endOfProperty(SURFACE, f);
    } finally {
      client.close();
    }
  }

  // ---- generation ------------------------------------------------------------------------------

  @Provide
  Arbitrary<WsCase> sockets() {
    Arbitrary<Boolean> sockjs = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true)));
    Arbitrary<Boolean> wrap = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false)));
    return Combinators.combine(sockjs, wrap, frame().list().ofMinSize(1).ofMaxSize(4)).as(WsCase::new);
  }

  private Arbitrary<WsFrame> frame() {
    Arbitrary<String> address = Arbitraries.frequencyOf(
      Tuple.of(4, Arbitraries.of(Addresses.PRESENCE_EVENTS, Addresses.SWARM_EVENTS, Addresses.PACK_EVENTS,
        Addresses.dashboardConversation(FuzzNode.AGENT_ID), Addresses.AUTH_TOKEN_REVOKED, Addresses.gatewayNode("x"), "conclave.events.",
        "conclave.events.x", "conclave.events.*", "conclave\\.events\\..+", "", " ", "x".repeat(301), "conclave.events." + "y".repeat(290))),
      Tuple.of(2, Hostile.strings().map(s -> "conclave.events.dashboard.conversation." + s)),
      Tuple.of(1, Hostile.strings()));
    Arbitrary<String> authorization = Arbitraries.of("Bearer " + f.tokens.get(Caller.ADMIN), "Bearer " + f.tokens.get(Caller.MEMBER),
      "Bearer " + f.tokens.get(Caller.BRIDGE), "Bearer " + f.tokens.get(Caller.STRANGER), "Bearer " + f.tokens.get(Caller.MCP),
      "Bearer nonsense", "Bearer ", "Basic Zm9vOmJhcg==", "", f.tokens.get(Caller.ADMIN));
    Arbitrary<String> type = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.of("register", "unregister", "send", "publish", "ping")),
      Tuple.of(1, Arbitraries.of("REGISTER", "rec", "err", "", "close", "auth")));
    Arbitrary<JsonObject> template = Combinators.combine(type, address, authorization, Arbitraries.integers().between(0, 3))
      .as((t, a, auth, shape) -> {
        JsonObject frame = new JsonObject().put("type", t).put("address", a);
        if (shape != 0) {
          frame.put("headers", new JsonObject().put("authorization", auth));
        }
        if (shape == 2) {
          frame.put("body", new JsonObject().put("content", "hi")).put("replyAddress", "conclave.events.reply");
        }
        return frame;
      });
    Arbitrary<byte[]> mutated = Combinators.combine(template, Hostile.mutations())
      .as((t, ms) -> Hostile.mutate(t, ms).getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> content = Arbitraries.frequencyOf(
      Tuple.of(10, mutated),
      Tuple.of(3, Hostile.malformedDocuments()),
      Tuple.of(1, Hostile.strings().map(s -> Json.encode(s).getBytes(StandardCharsets.UTF_8))),
      Tuple.of(1, Arbitraries.of(1_100_000, 4_300_000).map(n -> ("{\"type\":\"register\",\"address\":\"" + "z".repeat(n) + "\"}")
        .getBytes(StandardCharsets.UTF_8))));
    Arbitrary<Boolean> binary = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true)));
    return Combinators.combine(binary, content).as(WsFrame::new);
  }
}
