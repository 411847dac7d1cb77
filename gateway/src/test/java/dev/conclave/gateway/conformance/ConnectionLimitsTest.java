package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.SessionSocket;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What one caller can hold open: connections that never authenticate are closed after a short
 * time (however they idle), authenticated streams are not, and one principal's calls and
 * connections are bounded per node.
 */
class ConnectionLimitsTest {

  private static final int MAX_CALLS = 5;
  private static final int MAX_CONNECTIONS = 2;
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  /** An empty HTTP/2 SETTINGS frame. */
  private static final byte[] SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder()
      .env("CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS", "1")
      .env("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", String.valueOf(MAX_CALLS))
      .env("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", String.valueOf(MAX_CONNECTIONS)));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void connectionsThatNeverAuthenticateAreClosedHoweverTheyIdle() throws IOException {
    List<Socket> sockets = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Socket s = new Socket("127.0.0.1", gw.node().grpcPort());
      OutputStream out = s.getOutputStream();
      switch (i % 3) {
        case 0 -> { } // nothing at all
        case 1 -> out.write(PREFACE); // the preface, then silence
        default -> { // a full HTTP/2 start, then no request
          out.write(PREFACE);
          out.write(SETTINGS);
        }
      }
      out.flush();
      sockets.add(s);
    }
    long deadline = System.currentTimeMillis() + 10_000;
    for (Socket s : sockets) {
      assertThat(closedByServer(s, deadline)).as("connection closed by the node").isTrue();
    }
  }

  @Test
  void aConnectionWithOnlyRefusedCallsIsClosed() throws Exception {
    double before = closedUnauthenticated();
    try (GrpcCalls anonymous = new GrpcCalls(gw.vertx(), gw.node().grpcPort())) {
      var out = anonymous.unary(dev.conclave.proto.coven.ClientServiceGrpcClient.GetMe, com.google.protobuf.Empty.getDefaultInstance(), null);
      assertThat(out.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      long deadline = System.currentTimeMillis() + 10_000;
      while (closedUnauthenticated() <= before && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      assertThat(closedUnauthenticated()).isGreaterThan(before);
    }
  }

  @Test
  void anAuthenticatedStreamOutlivesTheTimeout() throws Exception {
    try (RawAgent agent = gw.connect("long-lived", gw.agentToken("long-lived"))) {
      Thread.sleep(3_000);
      assertThat(agent.ended()).isFalse();
      String r = gw.admin().sendOk("long-lived", "still there?", "long-lived-1");
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setText("yes"));
      agent.respond(r, MessageResponse.newBuilder().setDone(dev.conclave.proto.coven.Done.newBuilder()));
      assertThat(agent.ended()).isFalse();
    }
  }

  @Test
  void callsBeyondThePrincipalsLimitAreRefusedUntilOneEnds() throws Exception {
    try (RawAgent agent = gw.connect("watched", gw.agentToken("watched"))) {
      Clients watcher = gw.clients(gw.token(gw.newPrincipal(PrincipalType.CLIENT, "watcher", PrincipalStatus.APPROVED, List.of("admin"))));
      List<EventTap> taps = new ArrayList<>();
      for (int i = 0; i < MAX_CALLS; i++) {
        taps.add(watcher.stream("watched", null));
      }
      Thread.sleep(200);
      assertThat(taps).noneMatch(EventTap::ended);
      try (EventTap refused = watcher.stream("watched", null)) {
        assertThat(refused.awaitEnd()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      }
      taps.remove(0).close();
      // the freed slot is usable (the release follows the stream's reset)
      long deadline = System.currentTimeMillis() + 5_000;
      EventTap again = watcher.stream("watched", null);
      while (waitEnded(again, 300) && System.currentTimeMillis() < deadline) {
        again = watcher.stream("watched", null);
      }
      assertThat(again.ended()).isFalse();
      taps.add(again);
      taps.forEach(EventTap::close);
      assertThat(agent.ended()).isFalse();
    }
  }

  /**
   * Issue 40, finding 4: StreamEvents opened and cancelled at once, many in a row on one connection,
   * left their slots held, and the principal was refused every new call on any connection.
   */
  @Test
  void callsCancelledRightAfterTheyStartGiveTheirSlotsBack() throws Exception {
    try (RawAgent agent = gw.connect("hasty", gw.agentToken("hasty"))) {
      String token = gw.token(gw.newPrincipal(PrincipalType.CLIENT, "canceller", PrincipalStatus.APPROVED, List.of("admin")));
      try (GrpcCalls calls = new GrpcCalls(gw.vertx(), gw.node().grpcPort())) {
        for (int i = 0; i < 20 * MAX_CALLS; i++) {
          var request = GatewayFixture.await(calls.open(dev.conclave.proto.coven.ClientServiceGrpcClient.StreamEvents, GrpcCalls.bearer(token)));
          request.end(dev.conclave.proto.coven.StreamEventsRequest.newBuilder().setConversationKey("hasty").build());
          Thread.sleep(i % 3);
          request.cancel();
        }
      }
      // every slot comes back once the cancels have been read: a new call is admitted, on a new connection
      long deadline = System.currentTimeMillis() + 10_000;
      GrpcStatus refusal;
      do {
        try (GrpcCalls fresh = new GrpcCalls(gw.vertx(), gw.node().grpcPort());
             EventTap tap = new Clients(fresh, token).stream("hasty", null)) {
          refusal = waitEnded(tap, 300) ? tap.awaitEnd() : null;
        }
      } while (refusal != null && System.currentTimeMillis() < deadline);
      assertThat(refusal).as("a call after the cancelled ones (null: admitted)").isNull();
      assertThat(agent.ended()).isFalse();
    }
  }

  @Test
  void connectionsBeyondThePrincipalsLimitAreRefused() throws Exception {
    try (RawAgent agent = gw.connect("spread", gw.agentToken("spread"))) {
      String token = gw.token(gw.newPrincipal(PrincipalType.CLIENT, "spreader", PrincipalStatus.APPROVED, List.of("admin")));
      List<GrpcCalls> connections = new ArrayList<>();
      List<EventTap> taps = new ArrayList<>();
      try {
        for (int i = 0; i <= MAX_CONNECTIONS; i++) {
          GrpcCalls calls = new GrpcCalls(gw.vertx(), gw.node().grpcPort());
          connections.add(calls);
          taps.add(new Clients(calls, token).stream("spread", null));
        }
        Thread.sleep(200);
        for (int i = 0; i < MAX_CONNECTIONS; i++) {
          assertThat(taps.get(i).ended()).as("stream on connection " + i).isFalse();
        }
        assertThat(taps.get(MAX_CONNECTIONS).awaitEnd()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      } finally {
        taps.forEach(EventTap::close);
        connections.forEach(GrpcCalls::close);
      }
    }
  }

  @Test
  void sessionSocketsCountAsThePrincipalsConnections() throws Exception {
    String token = gw.token(gw.newPrincipal(PrincipalType.CLIENT, "socketeer", PrincipalStatus.APPROVED, List.of("admin")));
    List<SessionSocket> sockets = new ArrayList<>();
    try (RawAgent agent = gw.connect("socketed", gw.agentToken("socketed"))) {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        sockets.add(SessionSocket.open(gw.vertx(), gw.node().httpPort(), token));
      }
      assertThat(refusedUpgrade(token)).as("the upgrade beyond the limit").isEqualTo(429);
      // the sockets hold the principal's connections: a gRPC stream of its is refused as well
      try (GrpcCalls calls = new GrpcCalls(gw.vertx(), gw.node().grpcPort());
           EventTap tap = new Clients(calls, token).stream("socketed", null)) {
        assertThat(tap.awaitEnd()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      }
      // a closed socket frees its place
      sockets.remove(0).close();
      long deadline = System.currentTimeMillis() + 5_000;
      Integer refused = refusedUpgrade(token);
      while (refused != null && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
        refused = refusedUpgrade(token);
      }
      assertThat(refused).as("an upgrade once a socket closed").isNull();
      assertThat(agent.ended()).isFalse();
    } finally {
      sockets.forEach(SessionSocket::close);
    }
  }

  /** Upgrades to a session socket whose client goes away at once give their place back, however early. */
  @Test
  void sessionSocketsClosedDuringTheUpgradeGiveTheirPlaceBack() throws Exception {
    String token = gw.token(gw.newPrincipal(PrincipalType.CLIENT, "quitter", PrincipalStatus.APPROVED, List.of("admin")));
    byte[] upgrade = ("GET /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer " + token + "\r\n\r\n")
      .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < 20 * MAX_CONNECTIONS; i++) {
      try (Socket s = new Socket("127.0.0.1", gw.node().httpPort())) {
        s.getOutputStream().write(upgrade);
        s.getOutputStream().flush();
        Thread.sleep(i % 3);
      }
    }
    long deadline = System.currentTimeMillis() + 10_000;
    Integer refused = refusedUpgrade(token);
    while (refused != null && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
      refused = refusedUpgrade(token);
    }
    assertThat(refused).as("an upgrade after the abandoned ones").isNull();
  }

  /** The status an upgrade to a session socket was refused with, or null when it opened (then it is closed again). */
  private static Integer refusedUpgrade(String token) {
    try {
      SessionSocket.open(gw.vertx(), gw.node().httpPort(), token).close();
      return null;
    } catch (AssertionError | RuntimeException e) {
      Throwable cause = e;
      while (cause != null && !(cause instanceof io.vertx.core.http.UpgradeRejectedException)) {
        cause = cause.getCause();
      }
      if (cause == null) {
        throw e;
      }
      return ((io.vertx.core.http.UpgradeRejectedException) cause).getStatus();
    }
  }

  private static boolean waitEnded(EventTap tap, long ms) throws InterruptedException {
    long until = System.currentTimeMillis() + ms;
    while (!tap.ended() && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    return tap.ended();
  }

  private static double closedUnauthenticated() {
    var c = gw.node().runtime().context().metrics().find(MetricNames.EDGE_CONNECTIONS_CLOSED).tag("reason", "unauthenticated").counter();
    return c == null ? 0 : c.count();
  }

  /** Reads until the server closes the socket (true) or the deadline passes (false). */
  private static boolean closedByServer(Socket socket, long deadline) throws IOException {
    try (socket) {
      InputStream in = socket.getInputStream();
      byte[] buf = new byte[4096];
      while (System.currentTimeMillis() < deadline) {
        socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
        try {
          if (in.read(buf) < 0) {
            return true;
          }
        } catch (SocketTimeoutException e) {
          return false;
        } catch (IOException reset) {
          return true;
        }
      }
      return false;
    }
  }
}
