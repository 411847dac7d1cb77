package dev.conclave.gateway.conformance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Agents multiplexed on one HTTP/2 connection are independent: one cancelling its AgentStream (an
 * RST_STREAM from the client) ends that stream only, and the others keep their sessions and go on
 * answering. Reported against Vert.x 5.0.7: the cancel took the whole connection, and every agent on
 * it, down. Each round registers five fresh agents on the one connection, cancels one (idle in even
 * rounds, holding a half-answered request in odd rounds) and sends every other one a message whose
 * answer the client must see; the connection must survive the round and the node must not have
 * reported an exception, whether to Vert.x or through Netty's HTTP/2 codec (which logs and swallows
 * what a stream-close listener throws).
 */
class SharedConnectionTest {

  private static final int AGENTS = 5;
  private static final int ROUNDS = 50;

  private static GatewayFixture gw;
  private static Clients admin;
  private static GrpcClient agentClient;
  private static final List<String> serverErrors = new CopyOnWriteArrayList<>();
  private static final CodecErrors codecErrors = new CodecErrors();

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    admin = gw.admin();
    gw.node().runtime().vertx().exceptionHandler(err -> serverErrors.add(String.valueOf(err)));
    codecErrors.start();
    // every agent stream on one HTTP/2 connection: prior knowledge, and a pool of one
    HttpClient http = gw.vertx().httpClientBuilder()
      .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
      .with(new PoolOptions().setHttp2MaxSize(1))
      .build();
    agentClient = GrpcClient.client(gw.vertx(), http);
  }

  @AfterAll
  static void stop() {
    codecErrors.stop();
    if (agentClient != null) {
      GatewayFixture.await(agentClient.close());
    }
    gw.close();
  }

  @Test
  void oneAgentCancellingItsStreamLeavesTheOthersOnTheConnectionWorking() {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < AGENTS; i++) {
      tokens.add(gw.agentToken("shared-" + i));
    }
    HttpConnection previous = null;
    for (int round = 1; round <= ROUNDS; round++) {
      List<RawAgent> agents = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      try {
        for (int i = 0; i < AGENTS; i++) {
          String id = "shared-" + round + "-" + i;
          RawAgent agent = RawAgent.open(agentClient, gw.address(), tokens.get(i));
          agents.add(agent);
          ids.add(id);
          agent.register(RawAgent.registration(id));
        }
        HttpConnection connection = agents.get(0).connection();
        assertThat(agents).as("round %d: every agent on one HTTP/2 connection", round)
          .allSatisfy(a -> assertThat(a.connection()).isSameAs(connection));
        if (previous != null) {
          assertThat(connection).as("round %d: the connection of the rounds before survived", round).isSameAs(previous);
        }
        previous = connection;
        awaitConnected(AGENTS, "round " + round + ": all agents registered");

        int victim = round % AGENTS;
        if (round % 2 == 1) {
          // a working agent: it holds a request and has answered part of it
          String requestId = admin.sendOk(ids.get(victim), "work " + round, ids.get(victim) + "-work");
          assertThat(agents.get(victim).next().getSendMessage().getRequestId()).isEqualTo(requestId);
          agents.get(victim).respond(requestId, MessageResponse.newBuilder().setText("half an answer"));
        }
        agents.get(victim).reset();
        // the gateway has seen the reset once the session is gone
        awaitConnected(AGENTS - 1, "round " + round + ": the cancelled agent's session ended");

        for (int i = 0; i < AGENTS; i++) {
          if (i != victim) {
            roundTrip(round, ids.get(i), agents.get(i));
          }
        }
        assertThat(serverErrors).as("round %d: exceptions the node's Vert.x reported", round).isEmpty();
        assertThat(codecErrors.seen()).as("round %d: exceptions Netty's HTTP/2 codec caught", round).isEmpty();
      } finally {
        agents.forEach(a -> {
          try {
            a.finish();
          } catch (RuntimeException alreadyGone) {
            // the cancelled stream, or one the gateway ended
          }
        });
      }
      awaitConnected(0, "round " + round + ": every session closed");
    }
  }

  private static void roundTrip(int round, String agentId, RawAgent agent) {
    String what = "round " + round + ", agent " + agentId;
    assertThat(agent.ended()).as("%s: stream still open (ended: %s; server errors: %s %s)", what,
      agent.ended() ? agent.awaitEnd() : null, serverErrors, codecErrors.seen()).isFalse();
    try (EventTap tap = admin.stream(agentId, null)) {
      String requestId = admin.sendOk(agentId, "ping " + round, agentId + "-ping");
      ServerMessage work = agent.poll(5_000);
      assertThat(work).as("%s: the request reached the agent (stream end: %s; server errors: %s %s)", what,
        agent.ended() ? agent.awaitEnd() : null, serverErrors, codecErrors.seen()).isNotNull();
      assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
      agent.respond(requestId, MessageResponse.newBuilder().setText("pong " + round));
      agent.respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      List<ClientStreamEvent> events = tap.until(EventTap::terminal);
      ClientStreamEvent last = events.get(events.size() - 1);
      assertThat(last.hasDone()).as("%s: the answer completed (%s)", what, last).isTrue();
      assertThat(last.getDone().getFullResponse()).isEqualTo("pong " + round);
    }
  }

  private static void awaitConnected(int expected, String what) {
    await(() -> connected() == expected, what + " (connected agents: expected " + expected + ")");
  }

  private static double connected() {
    var gauge = gw.node().runtime().context().metrics().find(MetricNames.GATEWAY_AGENTS_CONNECTED).gauge();
    return gauge == null ? -1 : gauge.value();
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.currentTimeMillis() + 5_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(what + ": not within 5 s; now " + connected() + "; server errors: " + serverErrors
          + " " + codecErrors.seen());
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /**
   * What Netty's HTTP/2 codec logs at ERROR: it swallows exceptions thrown by stream listeners (such
   * as Vert.x's stream-close handling) and only logs them.
   */
  private static final class CodecErrors extends AppenderBase<ILoggingEvent> {

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final Logger codec = (Logger) LoggerFactory.getLogger("io.netty.handler.codec.http2");

    @Override
    public void start() {
      super.start();
      codec.addAppender(this);
    }

    @Override
    public void stop() {
      codec.detachAppender(this);
      super.stop();
    }

    @Override
    protected void append(ILoggingEvent event) {
      if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
        seen.add(event.getFormattedMessage() + (event.getThrowableProxy() == null ? ""
          : " " + event.getThrowableProxy().getClassName() + ": " + event.getThrowableProxy().getMessage()));
      }
    }

    List<String> seen() {
      return seen;
    }
  }
}
