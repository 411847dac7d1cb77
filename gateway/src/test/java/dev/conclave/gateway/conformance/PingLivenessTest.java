package dev.conclave.gateway.conformance;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ListAgentsRequest;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/2 PINGs find an agent whose connection went silent without closing (a frozen process, a
 * dropped route), long before its heartbeat timeout; an idle agent that answers them stays, and so
 * does an agent whose PING answers are lost while its messages still arrive.
 */
class PingLivenessTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder()
      .env(GatewaySettings.HEARTBEAT_TIMEOUT, "120")
      .env(GatewaySettings.PING_INTERVAL, "1"));
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void anIdleAgentThatAnswersPingsStaysConnected() throws Exception {
    try (RawAgent idle = gw.connect("pinged-idle", gw.agentToken("pinged-idle"))) {
      // five PING intervals without a message from the agent: its client answers the PINGs
      Thread.sleep(5_000);
      assertThat(idle.ended()).isFalse();
      assertThat(connected("pinged-idle")).isTrue();
    }
  }

  @Test
  void aConnectionThatStopsAnsweringPingsIsDroppedLongBeforeTheHeartbeatTimeout() throws Exception {
    Vertx vertx = gw.vertx();
    FrozenRoute route = new FrozenRoute(vertx, gw.address());
    GrpcClient client = GrpcClient.client(vertx);
    try (RawAgent agent = RawAgent.open(client, route.address(), gw.agentToken("frozen"))) {
      agent.register(RawAgent.registration("frozen"));
      assertThat(connected("frozen")).isTrue();
      long frozenAt = System.nanoTime();
      route.freeze();
      // two intervals of patience, then at most half an interval until the next check
      while (connected("frozen") && System.nanoTime() - frozenAt < 20_000_000_000L) {
        Thread.sleep(100);
      }
      double seconds = (System.nanoTime() - frozenAt) / 1e9;
      assertThat(connected("frozen")).as("still connected %.1f s after its connection froze", seconds).isFalse();
      assertThat(seconds).as("dropped by the PING deadline, not the 120 s heartbeat timeout").isLessThan(20);
    } finally {
      GatewayFixture.await(client.close());
      route.close();
    }
  }

  @Test
  void anAgentWhosePingAnswersAreLostStaysWhileItsMessagesArrive() throws Exception {
    Vertx vertx = gw.vertx();
    FrozenRoute route = new FrozenRoute(vertx, gw.address());
    GrpcClient client = GrpcClient.client(vertx);
    try (RawAgent agent = RawAgent.open(client, route.address(), gw.agentToken("unanswering"))) {
      agent.register(RawAgent.registration("unanswering"));
      route.dropPingAnswers();
      // six PING intervals with no answer reaching the gateway, but a heartbeat every half interval
      long until = System.nanoTime() + 6_000_000_000L;
      while (System.nanoTime() < until) {
        agent.heartbeat();
        Thread.sleep(500);
      }
      assertThat(route.droppedPingAnswers()).as("PING answers the route swallowed").isGreaterThanOrEqualTo(3);
      assertThat(agent.ended()).isFalse();
      assertThat(connected("unanswering")).isTrue();
    } finally {
      GatewayFixture.await(client.close());
      route.close();
    }
  }

  private static boolean connected(String agentId) {
    Clients admin = gw.admin();
    List<AgentInfo> agents = admin.grpc().unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), admin.authorization())
      .response().orElseThrow().getAgentsList();
    Optional<AgentInfo> agent = agents.stream().filter(a -> a.getId().equals(agentId)).findFirst();
    return agent.isPresent() && agent.get().getConnected();
  }

  /**
   * A TCP route to the gateway that can freeze: it stops reading either side and keeps both
   * sockets open, as a suspended process or a black-holed route would. It can also swallow the
   * agent's PING answers (HTTP/2 PING frames with the ACK flag) and pass everything else.
   */
  private static final class FrozenRoute implements AutoCloseable {

    /** The client connection preface's length (RFC 9113 §3.4), then a frame header's. */
    private static final int PREFACE = 24;
    private static final int FRAME_HEADER = 9;
    private static final byte PING = 0x6;
    private static final byte ACK = 0x1;

    private final NetServer server;
    private final int port = FreePorts.next();
    private final List<NetSocket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;
    private volatile boolean dropPingAnswers;
    private final AtomicInteger droppedPingAnswers = new AtomicInteger();
    /** The agent's bytes not yet forwarded: the connection preface, then whole HTTP/2 frames. */
    private Buffer pending = Buffer.buffer();
    private boolean prefaceSeen;

    FrozenRoute(Vertx vertx, SocketAddress target) {
      var upstream = vertx.createNetClient();
      server = vertx.createNetServer().connectHandler(agentSide -> {
        agentSide.pause();
        upstream.connect(target).onSuccess(gatewaySide -> {
          sockets.add(agentSide);
          sockets.add(gatewaySide);
          agentSide.handler(bytes -> forwardFrames(bytes, gatewaySide));
          gatewaySide.handler(bytes -> forward(bytes, agentSide));
          agentSide.closeHandler(v -> gatewaySide.close());
          gatewaySide.closeHandler(v -> agentSide.close());
          agentSide.resume();
        }).onFailure(err -> agentSide.close());
      });
      GatewayFixture.await(server.listen(port, "127.0.0.1"));
    }

    private void forward(Buffer bytes, NetSocket to) {
      if (!frozen) {
        to.write(bytes);
      }
    }

    /** Forwards the agent's bytes frame by frame, leaving out PING answers when asked to. */
    private void forwardFrames(Buffer bytes, NetSocket to) {
      pending.appendBuffer(bytes);
      if (!prefaceSeen) {
        if (pending.length() < PREFACE) {
          return;
        }
        forward(pending.getBuffer(0, PREFACE), to);
        pending = pending.getBuffer(PREFACE, pending.length());
        prefaceSeen = true;
      }
      int at = 0;
      while (pending.length() - at >= FRAME_HEADER) {
        int length = pending.getUnsignedMedium(at);
        if (pending.length() - at < FRAME_HEADER + length) {
          break;
        }
        boolean pingAnswer = pending.getByte(at + 3) == PING && (pending.getByte(at + 4) & ACK) != 0;
        if (pingAnswer && dropPingAnswers) {
          droppedPingAnswers.incrementAndGet();
        } else {
          forward(pending.getBuffer(at, at + FRAME_HEADER + length), to);
        }
        at += FRAME_HEADER + length;
      }
      pending = pending.getBuffer(at, pending.length());
    }

    void dropPingAnswers() {
      dropPingAnswers = true;
    }

    int droppedPingAnswers() {
      return droppedPingAnswers.get();
    }

    SocketAddress address() {
      return SocketAddress.inetSocketAddress(port, "127.0.0.1");
    }

    void freeze() {
      frozen = true;
      sockets.forEach(NetSocket::pause);
    }

    @Override
    public void close() {
      sockets.forEach(NetSocket::close);
      GatewayFixture.await(server.close());
    }
  }
}
