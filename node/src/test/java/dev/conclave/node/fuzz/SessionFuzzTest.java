package dev.conclave.node.fuzz;

import dev.conclave.node.fuzz.FuzzNode.Caller;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * WebSocket frames on the session protocol ({@code GET /api/v1/sessions}, seed 004), from callers of
 * every kind, bearer tokens and the console's cookie of each purpose with Origins of every sort (none,
 * the node's own, another port or name, opaque, hostile): the upgrade must open exactly for members'
 * and admins' bearer tokens and for an {@code api} cookie from the node's own page. Then mutations of its submissions (configure_session, user_input, interrupt, exec_approval,
 * agent_query, unknown and extension ops: missing, extra and wrongly typed fields, hostile strings),
 * text that is not JSON, JSON that is not an object, binary frames and oversized messages. An upgrade
 * may be refused (4xx), never a 5xx. After the frames comes an unknown op that must still be answered
 * with an {@code error} naming it, since the spec keeps a session open after one, unless the node has
 * closed the socket. No frame or close reason may name a Java class, no close may be 1011, no event
 * may carry an internal error, and nothing may be logged at ERROR or with a stack trace.
 *
 * <p>Sessions configure on an agent that does not exist, or (members only) on the fuzz node's agent:
 * admins never reach a real agent, so no generated {@code lifecycle_transition} can pause or retire
 * the agent the other surfaces rely on.
 */
class SessionFuzzTest {

  private static final String SURFACE = "session websocket";
  private static final AtomicInteger SENTINELS = new AtomicInteger();
  private static final String NOBODY_AGENT = "fz-no-such-agent";

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();
  private final WebSocketClient client = f.vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(1024 * 1024)
    .setMaxMessageSize(8 * 1024 * 1024));

  /** One frame as sent: text or binary. */
  record Frame(boolean binary, byte[] content) {
    @Override
    public String toString() {
      return (binary ? "binary " : "text ") + Hostile.show(content);
    }
  }

  /** What the upgrade carries besides the caller's authorization: the console's cookie, and the page's Origin (null: none). */
  record Upgrade(FuzzNode.Cookie cookie, String origin) {
    @Override
    public String toString() {
      return "cookie " + cookie + ", " + (origin == null ? "no Origin" : "Origin " + Hostile.show(origin));
    }
  }

  /** One generated socket: its caller, its upgrade and frames. */
  record SessionCase(Caller caller, Upgrade upgrade, List<Frame> frames) {
    @Override
    public String toString() {
      return "as " + caller + " (" + upgrade + ") frames " + frames;
    }
  }

  @Property(tries = 800, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void theSessionSocketSurvivesMalformedSubmissionsAndKeepsAnswering(@ForAll("sockets") SessionCase c) {
    strays.collect(f.logs);
    Findings found = new Findings(SURFACE, c.caller().name(), c);
    LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
    CompletableFuture<String> closed = new CompletableFuture<>();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(f.node.httpPort())
      .setURI("/api/v1/sessions");
    String authorization = f.authorization(c.caller());
    if (authorization != null) {
      options.addHeader("authorization", authorization);
    }
    // Vert.x sends an Origin of its own unless told not to, and then drops any Origin given
    options.setAllowOriginHeader(c.upgrade().origin() != null);
    if (c.upgrade().origin() != null) {
      options.addHeader("origin", c.upgrade().origin());
    }
    if (c.upgrade().cookie() != FuzzNode.Cookie.NONE) {
      options.addHeader("cookie", f.cookies.get(c.upgrade().cookie()));
    }
    String admitted = admitted(c);
    WebSocket ws;
    try {
      ws = client.connect(options).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause = e; // await throws the upgrade's own failure
      if (!(cause instanceof UpgradeRejectedException rejected) || rejected.getStatus() >= 500) {
        found.add("the upgrade failed: " + (cause instanceof UpgradeRejectedException r ? r.getStatus() : cause.getClass().getSimpleName()),
          cause.toString());
      } else if (admitted != null && rejected.getStatus() != 431) {
        // (431: headers over the node's limit, a huge generated Origin; refused before anyone is admitted)
        found.add("an upgrade the rules admit (" + admitted + ") was refused: " + rejected.getStatus(),
          rejected.getBody() == null ? "" : rejected.getBody().toString());
      }
      found.logs(f.logs.drain());
      found.close();
      return;
    }
    if (admitted == null) {
      found.add("the session socket opened for a caller the browser rules refuse (" + c.upgrade().cookie() + " cookie, "
        + (c.upgrade().origin() == null ? "no Origin" : "Origin " + (own(c.upgrade().origin()) ? "own" : "foreign")) + ")", c.toString());
    }
    try {
      ws.textMessageHandler(received::add);
      ws.binaryMessageHandler(b -> received.add(b.toString(StandardCharsets.UTF_8)));
      ws.closeHandler(v -> closed.complete(ws.closeStatusCode() + " " + ws.closeReason()));
      ws.exceptionHandler(e -> { });
      for (Frame frame : c.frames()) {
        if (closed.isDone()) {
          break;
        }
        try {
          if (frame.binary()) {
            ws.writeBinaryMessage(Buffer.buffer(frame.content()));
          } else {
            ws.writeTextMessage(new String(frame.content(), StandardCharsets.UTF_8));
          }
        } catch (RuntimeException e) {
          break; // closed under us
        }
      }
      String sentinel = "fz-sentinel-" + SENTINELS.incrementAndGet();
      if (!closed.isDone()) {
        try {
          ws.writeTextMessage(new JsonObject().put("id", sentinel).put("op", new JsonObject().put("type", "fz_no_such_op")).encode());
        } catch (RuntimeException ignored) {
          // closed under us: judged below
        }
      }
      boolean answered = false;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!answered && !closed.isDone() && System.nanoTime() < deadline) {
        String m = received.poll(20, TimeUnit.MILLISECONDS);
        if (m != null) {
          answered = judge(m, sentinel, found);
        }
      }
      for (String m; (m = received.poll()) != null; ) {
        judge(m, sentinel, found);
      }
      if (!answered && !closed.isDone()) {
        found.add("the session stopped answering", "no error event for an unknown op within 5 s");
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

  /**
   * Why the node must open this socket, or null when it must refuse it. A bearer token decides alone
   * (members and admins get in); without one, the session cookie opens it only when it is of an
   * {@code api} token and the page is the node's own (issue 40: a {@code bridge} cookie, or a page
   * of another origin, drove the agent through this socket).
   */
  private String admitted(SessionCase c) {
    if (c.caller() != Caller.NOBODY) {
      return c.caller() == Caller.ADMIN || c.caller() == Caller.MEMBER || c.caller() == Caller.STRANGER ? "a member's bearer token" : null;
    }
    boolean api = c.upgrade().cookie() == FuzzNode.Cookie.API_MEMBER || c.upgrade().cookie() == FuzzNode.Cookie.API_ADMIN;
    return api && c.upgrade().origin() != null && own(c.upgrade().origin()) ? "an api cookie from the node's own page" : null;
  }

  /**
   * The node's own origin: its host and port exactly, over http or https (on a plain connection the
   * node cannot tell whether a proxy in front ended TLS, so it takes either scheme).
   */
  private boolean own(String origin) {
    String own = f.ownOrigin();
    int scheme = origin.indexOf("://");
    return scheme > 0 && origin.substring(0, scheme).matches("(?i)https?") && origin.substring(scheme).equals(own.substring(own.indexOf("://")));
  }

  /** Checks one message from the node; true when it is the error answering the sentinel. */
  private static boolean judge(String message, String sentinel, Findings found) {
    found.leaks("frame", message);
    JsonObject event;
    try {
      event = new JsonObject(message);
    } catch (RuntimeException e) {
      found.add("a frame that is not a JSON object", Findings.abbreviate(message, 300));
      return false;
    }
    JsonObject msg = event.getValue("msg") instanceof JsonObject m ? m : new JsonObject();
    if ("error".equals(msg.getValue("type"))
      && ("internal".equals(msg.getValue("code")) || String.valueOf(msg.getValue("message")).contains("internal error"))) {
      found.add("an internal error event", Findings.abbreviate(message, 400));
    }
    return sentinel.equals(event.getValue("id")) && "error".equals(msg.getValue("type"))
      && String.valueOf(msg.getValue("message")).contains("fz_no_such_op");
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
  Arbitrary<SessionCase> sockets() {
    Arbitrary<Caller> caller = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(Caller.MEMBER)), Tuple.of(3, Arbitraries.just(Caller.ADMIN)),
      Tuple.of(3, Arbitraries.just(Caller.NOBODY)),
      Tuple.of(1, Arbitraries.of(Caller.STRANGER, Caller.GARBAGE_BEARER, Caller.BASIC, Caller.AGENT, Caller.PACK)));
    return caller.flatMap(who -> upgrade(who).flatMap(up -> frame(who == Caller.ADMIN || (who == Caller.NOBODY && up.cookie().admin()))
      .list().ofMinSize(1).ofMaxSize(5).map(frames -> new SessionCase(who, up, frames))));
  }

  /** The cookie (of each purpose, mostly when there is no bearer token) and the Origin: none, the node's own, another, hostile. */
  private Arbitrary<Upgrade> upgrade(Caller who) {
    Arbitrary<FuzzNode.Cookie> cookie = who == Caller.NOBODY
      ? Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(FuzzNode.Cookie.NONE)), Tuple.of(3, Arbitraries.just(FuzzNode.Cookie.API_MEMBER)),
        Tuple.of(2, Arbitraries.just(FuzzNode.Cookie.API_ADMIN)), Tuple.of(2, Arbitraries.just(FuzzNode.Cookie.BRIDGE_MEMBER)),
        Tuple.of(2, Arbitraries.just(FuzzNode.Cookie.BRIDGE_ADMIN)), Tuple.of(1, Arbitraries.just(FuzzNode.Cookie.GARBAGE)))
      : Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(FuzzNode.Cookie.NONE)), Tuple.of(1, Arbitraries.of(FuzzNode.Cookie.class)));
    String own = f.ownOrigin();
    String port = own.substring(own.lastIndexOf(':') + 1);
    Arbitrary<Optional<String>> origin = Arbitraries.frequencyOf(
      Tuple.of(3, Arbitraries.just(Optional.<String>empty())),
      Tuple.of(4, Arbitraries.of(own, own.replace("http", "HTTP"), own.replace("http", "https")).map(Optional::of)),
      Tuple.of(4, Arbitraries.of("http://evil.example", "http://127.0.0.1:1", "http://localhost:" + port, "null", "ws://127.0.0.1:" + port,
        own + ".evil.example", own + "/", "http://127.0.0.1", "http://127.0.0.1:" + port + "@evil.example", "", own + "," + own)
        .map(Optional::of)),
      // header values are printable ASCII: anything else the client itself refuses to send
      Tuple.of(1, Hostile.strings().map(text -> Optional.of(text.replaceAll("[^\\x20-\\x7e]", "?").trim()))));
    return Combinators.combine(cookie, origin).as((c, o) -> new Upgrade(c, o.orElse(null)));
  }

  private Arbitrary<Frame> frame(boolean admin) {
    // admins never configure on the real agent (their lifecycle_transition would pause or retire it)
    Arbitrary<String> agent = admin
      ? Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(NOBODY_AGENT)), Tuple.of(1, Hostile.strings()))
      : Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(FuzzNode.AGENT_ID)), Tuple.of(3, Arbitraries.just(NOBODY_AGENT)),
        Tuple.of(1, Hostile.strings()));
    Arbitrary<String> type = Arbitraries.frequencyOf(
      Tuple.of(6, Arbitraries.of("configure_session", "user_input", "interrupt", "exec_approval", "agent_query")),
      Tuple.of(admin ? 0 : 1, Arbitraries.of("lifecycle_transition", "register_agent")),
      Tuple.of(1, Arbitraries.of("spawn_sub_agent", "knowledge_update", "verification", "cort", "visualization", "USER_INPUT", "", "op")));
    Arbitrary<JsonObject> template = Combinators.combine(type, agent, Arbitraries.integers().between(0, 3), Hostile.strings())
      .as((t, a, shape, text) -> submission(t, a, shape, text));
    Arbitrary<byte[]> mutated = Combinators.combine(template, Hostile.mutations())
      .as((t, ms) -> Hostile.mutate(t, ms).getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> content = Arbitraries.frequencyOf(
      Tuple.of(6, template.map(t -> t.encode().getBytes(StandardCharsets.UTF_8))),
      Tuple.of(8, mutated),
      Tuple.of(3, Hostile.malformedDocuments()),
      Tuple.of(1, Hostile.strings().map(s -> Json.encode(s).getBytes(StandardCharsets.UTF_8))),
      Tuple.of(1, Arbitraries.of(1_100_000, 4_300_000).map(n -> new JsonObject().put("id", "big")
        .put("op", new JsonObject().put("type", "user_input").put("items", new JsonArray().add(new JsonObject().put("type", "text")
          .put("text", "z".repeat(n)))))
        .encode().getBytes(StandardCharsets.UTF_8))));
    Arbitrary<Boolean> binary = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true)));
    return Combinators.combine(binary, content).as(Frame::new);
  }

  private static JsonObject submission(String type, String agent, int shape, String text) {
    JsonObject op = new JsonObject().put("type", type);
    switch (type) {
      case "configure_session" -> {
        if (shape == 1) {
          op.put("agent_query", new JsonObject().put("capabilities", new JsonArray().add("chat")).put("lifecycle", "Running")
            .put("primary_type", text));
        } else {
          op.put("agent_id", agent);
        }
        if (shape == 2) {
          op.put("session_id", text).put("last_event_id", "12.3");
        }
        if (shape == 3) {
          op.put("conversation_key", text);
        }
      }
      case "user_input" -> op.put("items", new JsonArray().add(new JsonObject().put("type", shape == 1 ? "image" : "text").put("text", text)));
      case "exec_approval" -> op.put("id", text).put("decision", shape == 0 ? "allow" : shape == 1 ? "deny" : text);
      case "agent_query" -> op.put("query", new JsonObject().put("domain", text).put("status", shape == 0 ? "connected" : text));
      case "lifecycle_transition" -> op.put("agent_id", NOBODY_AGENT).put("to", shape == 0 ? "Paused" : text);
      case "register_agent" -> op.put("agent_id", "fz-" + Integer.toHexString(text.hashCode())).put("classification", text);
      default -> op.put("payload", text);
    }
    return new JsonObject().put("id", "s" + shape).put("op", op);
  }
}
