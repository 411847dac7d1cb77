package dev.conclave.node.access;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.access.RouteTable.Route;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.testing.RawHttp;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every WebSocket a node serves (all three roles) under the browser rules ({@code platform.server.CrossSite}), found
 * rather than listed: every {@code GET} route of the route table is offered an upgrade (as a
 * program would: an admin's bearer token, no Origin), and those that open are the WebSocket routes
 * under {@code /api/}; the bridge's two transports are the only other place a socket may open
 * ({@code CrossSite.SOCKET_PATHS}), and an upgrade anywhere else is refused. A WebSocket route
 * without a probe here fails the test until it gets one. For each socket:
 * <ul>
 *   <li>a page of another origin, with an {@code api} cookie, gets nothing;</li>
 *   <li>a {@code bridge} cookie, even from the node's own page, changes nothing;</li>
 *   <li>the node's own page with an {@code api} cookie gets what the socket offers;</li>
 *   <li>a program with a bearer token and no Origin gets it too.</li>
 * </ul>
 */
class WebSocketRoutesTest {

  /** What a caller could do on a socket. */
  enum Access { NOTHING, READS, ACTS }

  /** How a socket is tried: its cookie ({@code api}, {@code bridge} or none), a bearer token, and the page's Origin. */
  record Try(String cookie, String token, String origin) {
  }

  /** One WebSocket and how to tell what a caller can do on it. */
  interface SocketProbe {
    /** What the socket offers the callers it admits: the session socket acts, the bridge only reads. */
    Access offers();

    Access access(Try t);
  }

  private static final String EVIL = "http://evil.example";

  private static MatrixFixture f;
  private static String apiCookie;
  private static String bridgeCookie;

  @BeforeAll
  static void start() {
    f = new MatrixFixture();
    Principal admin = GatewayFixture.await(f.node.runtime().context().principals().find(f.principals.get(Who.ADMIN))).orElseThrow();
    apiCookie = login(f.tokens.get(Who.ADMIN));
    bridgeCookie = login(GatewayFixture.await(f.node.runtime().context().tokens().issue(admin, Duration.ofHours(1), TokenPurpose.BRIDGE))
      .token());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  /** The probes, by the path a socket is opened at; a WebSocket route of the node missing here fails {@link #everyWebSocketRouteHasAProbe}. */
  private static Map<String, SocketProbe> probes() {
    Map<String, SocketProbe> out = new LinkedHashMap<>();
    out.put("/api/v1/sessions", new SessionProbe());
    out.put("/eventbus/websocket", new BridgeProbe(false));
    out.put("/eventbus/{server}/{session}/websocket", new BridgeProbe(true));
    return out;
  }

  @Test
  void everyWebSocketRouteHasAProbe() {
    List<String> found = new ArrayList<>();
    for (Route route : f.node.runtime().context().edge().routes().all()) {
      if (route.surface().equals("http") && route.method().equals("GET") && opens(fill(route.path()))) {
        found.add(route.path());
      }
    }
    found.add("/eventbus/websocket");
    found.add("/eventbus/{server}/{session}/websocket");
    assertThat(new TreeSet<>(probes().keySet())).as("the node's WebSocket routes vs. the probes here").isEqualTo(new TreeSet<>(found));
  }

  @Test
  void noSocketOpensAnywhereElse() {
    for (String path : List.of("/", "/dashboard", "/index.html", "/auth/session", "/mcp", "/health/live", "/health/ready", "/metrics",
      "/nowhere", "/apix", "/eventbusx")) {
      assertThat(opens(path)).as(path).isFalse();
    }
    RawHttp.Response refused = RawHttp.send(f.node.httpPort(), "GET", "/metrics", Map.of("upgrade", "websocket", "connection", "upgrade",
      "sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version", "13"), null, 15_000);
    assertThat(refused.status()).isEqualTo(404);
    assertThat(refused.body()).contains("websocket_not_served");
  }

  @Test
  void aPageOfAnotherOriginGetsNothingWithTheCookie() {
    List<String> wrong = new ArrayList<>();
    probes().forEach((path, probe) -> {
      for (String origin : List.of(EVIL, "http://127.0.0.1:1", "http://localhost:" + f.node.httpPort(), "null")) {
        expect(wrong, path + " api cookie, Origin " + origin, probe.access(new Try(apiCookie, null, origin)), Access.NOTHING);
      }
      // browsers always send an Origin on an upgrade: a cookie without one proves nothing
      expect(wrong, path + " api cookie, no Origin", probe.access(new Try(apiCookie, null, null)), Access.NOTHING);
    });
    assertThat(wrong).isEmpty();
  }

  @Test
  void aBridgeCookieChangesNothing() {
    List<String> wrong = new ArrayList<>();
    probes().forEach((path, probe) -> {
      Access own = probe.access(new Try(bridgeCookie, null, own()));
      if (own == Access.ACTS) {
        wrong.add(path + " bridge cookie, own Origin: ACTS");
      }
      expect(wrong, path + " bridge cookie, Origin " + EVIL, probe.access(new Try(bridgeCookie, null, EVIL)), Access.NOTHING);
    });
    assertThat(wrong).isEmpty();
  }

  @Test
  void theNodesOwnPageWithAnApiCookieAndAProgramWithABearerTokenAreServed() {
    List<String> wrong = new ArrayList<>();
    probes().forEach((path, probe) -> {
      expect(wrong, path + " api cookie, own Origin", probe.access(new Try(apiCookie, null, own())), probe.offers());
      expect(wrong, path + " bearer token, no Origin", probe.access(new Try(null, f.tokens.get(Who.ADMIN), null)), probe.offers());
    });
    assertThat(wrong).isEmpty();
  }

  private static void expect(List<String> wrong, String what, Access actual, Access expected) {
    if (actual != expected) {
      wrong.add(what + ": expected " + expected + ", got " + actual);
    }
  }

  // ---- the probes --------------------------------------------------------------------------

  /** The session protocol: a socket that opens can act (every op runs as its caller), so opening is acting. */
  static final class SessionProbe implements SocketProbe {
    @Override
    public Access offers() {
      return Access.ACTS;
    }

    @Override
    public Access access(Try t) {
      Map<String, String> headers = new LinkedHashMap<>();
      if (t.token() != null) {
        headers.put("authorization", "Bearer " + t.token());
      }
      BrowserSocket s = BrowserSocket.open(f, "/api/v1/sessions", t.cookie(), t.origin(), headers);
      if (s == null) {
        return Access.NOTHING;
      }
      try (s) {
        s.ws.writeTextMessage(new JsonObject().put("id", "q").put("op", new JsonObject().put("type", "agent_query")).encode());
        // the op is always answered: its result, or an error
        JsonObject answer = s.next(m -> "q".equals(m.getString("id")));
        return answer != null && "agent_query_result".equals(answer.getJsonObject("msg", new JsonObject()).getString("type"))
          ? Access.ACTS : Access.NOTHING;
      }
    }
  }

  /**
   * The event-bus bridge, raw or in SockJS's framing: every upgrade opens; a caller reads when a
   * subscription is granted, and would act if a {@code send} were taken (never: no inbound address).
   */
  static final class BridgeProbe implements SocketProbe {
    private final boolean sockjs;

    BridgeProbe(boolean sockjs) {
      this.sockjs = sockjs;
    }

    @Override
    public Access offers() {
      return Access.READS;
    }

    @Override
    public Access access(Try t) {
      String path = sockjs ? "/eventbus/000/" + Long.toHexString(System.nanoTime()) + "/websocket" : "/eventbus/websocket";
      BrowserSocket s = BrowserSocket.open(f, path, t.cookie(), t.origin(), Map.of());
      if (s == null) {
        return Access.NOTHING;
      }
      try (s) {
        if (sockjs && !"o".equals(s.raw())) {
          return Access.NOTHING;
        }
        JsonObject register = new JsonObject().put("type", "register").put("address", Addresses.PRESENCE_EVENTS);
        if (t.token() != null) {
          register.put("headers", new JsonObject().put("authorization", "Bearer " + t.token()));
        }
        write(s, register);
        // a register is always answered: the subscribed marker, or an err frame
        JsonObject answer = s.next(m -> Addresses.PRESENCE_EVENTS.equals(m.getString("address"))
          && ("rec".equals(m.getString("type")) || "err".equals(m.getString("type"))));
        boolean reads = answer != null && "rec".equals(answer.getString("type"));
        write(s, new JsonObject().put("type", "send").put("address", Addresses.PRESENCE_EVENTS).put("body", new JsonObject()));
        JsonObject sent = s.next(m -> "err".equals(m.getString("type")) && "rejected".equals(m.getString("body")));
        return sent == null ? Access.ACTS : reads ? Access.READS : Access.NOTHING;
      }
    }

    private void write(BrowserSocket s, JsonObject frame) {
      s.ws.writeTextMessage(sockjs ? new JsonArray().add(frame.encode()).encode() : frame.encode());
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Whether an upgrade to {@code path}, as an admin's program (bearer token, no Origin), opens a socket. */
  private static boolean opens(String path) {
    BrowserSocket s = BrowserSocket.open(f, path, null, null, Map.of("authorization", "Bearer " + f.tokens.get(Who.ADMIN)));
    if (s == null) {
      return false;
    }
    s.close();
    return true;
  }

  /** A route's path with its parameters filled (the fixture's agent, else a placeholder). */
  private static String fill(String path) {
    return path.replaceAll(":agentId", MatrixFixture.AGENT_ID).replaceAll(":[A-Za-z]+", "x");
  }

  private static String own() {
    return "http://127.0.0.1:" + f.node.httpPort();
  }

  private static String login(String token) {
    RawHttp.Response r = RawHttp.send(f.node.httpPort(), "POST", "/auth/session", Map.of("content-type", "application/json"),
      new JsonObject().put("token", token).toBuffer().getBytes(), 15_000);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String set = r.header("set-cookie");
    return set.substring(0, set.indexOf(';'));
  }
}
