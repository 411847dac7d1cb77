package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class ReconnectTest extends ClientTestBase {

  @Test
  void skipsAnEndpointThatIsDownAndRegistersOnTheNext() {
    Endpoint down = new Endpoint("127.0.0.1", FakeGateway.deadPort());
    FakeGateway b = gateway("node-b");
    RecordingListener events = new RecordingListener();

    Session session = Wait.result(client(builder(down, b.endpoint()).listener(events)).start());

    assertThat(session.endpoint()).isEqualTo(b.endpoint());
    assertThat(session.serverId()).isEqualTo("node-b");
    assertThat(events.retries).hasSize(1);
    assertThat(events.retries.get(0).next()).isEqualTo(b.endpoint());
    assertThat(events.retries.get(0).lastFailure()).isInstanceOfSatisfying(GatewayUnavailableException.class,
      e -> assertThat(e.endpoint()).isEqualTo(down));
    assertThat(events.reconnectFlags).containsExactly(false);
  }

  @Test
  void backsOffExponentiallyWithACapWhileEveryEndpointIsDownThenRecovers() {
    Endpoint downA = new Endpoint("127.0.0.1", FakeGateway.deadPort());
    Endpoint downB = new Endpoint("127.0.0.1", FakeGateway.deadPort());
    RecordingListener events = new RecordingListener();
    AgentClient client = client(builder(downA, downB).listener(events));
    Future<Session> start = client.start();

    Wait.until("seven failed attempts", () -> events.retries.size() >= 7);
    List<RecordingListener.Retry> retries = List.copyOf(events.retries).subList(0, 7);
    assertThat(retries).extracting(r -> r.delay().toMillis()).containsExactly(20L, 40L, 80L, 160L, 200L, 200L, 200L);
    assertThat(retries).extracting(RecordingListener.Retry::next)
      .containsExactly(downB, downA, downB, downA, downB, downA, downB);
    assertThat(retries).extracting(RecordingListener.Retry::attempt).containsExactly(0, 1, 2, 3, 4, 5, 6);
    assertThat(start.isComplete()).as("transient failures do not fail start").isFalse();

    // the first gateway comes back on its address
    FakeGateway back = FakeGateway.start(vertx, "node-a", downA.port());
    try {
      Session session = Wait.result(start);
      assertThat(session.serverId()).isEqualTo("node-a");
    } finally {
      Wait.result(client.stop());
      back.close();
    }
  }

  @Test
  void aDroppedConnectionAbandonsTheRequestAndReRegistersElsewhereWithTheSameId() {
    FakeGateway a = gateway("node-a");
    FakeGateway b = gateway("node-b");
    RecordingListener events = new RecordingListener();
    List<String> cancels = new CopyOnWriteArrayList<>();
    List<String> cancellationSignals = new CopyOnWriteArrayList<>();
    Promise<Void> firstRequest = Promise.promise();
    AgentHandler handler = new AgentHandler() {
      @Override
      public Future<Void> handle(IncomingMessage message, ResponseStream response) {
        if (message.requestId().equals("r1")) {
          response.cancellation().onSuccess(cancellationSignals::add);
          return response.text("started").compose(v -> firstRequest.future());
        }
        return response.done("served by the next gateway");
      }

      @Override
      public Future<Void> onCancel(String requestId, String reason) {
        cancels.add(requestId);
        firstRequest.tryComplete();
        return Future.succeededFuture();
      }
    };
    started(builder(a.endpoint(), b.endpoint()).handler(handler).listener(events));
    AgentConn onA = a.nextConnection();
    onA.sendMessage("r1", "long job");
    assertThat(onA.nextResponse().getText()).isEqualTo("started");

    onA.dropConnection();

    AgentConn onB = b.nextConnection();
    assertThat(onB.register().getAgentId()).isEqualTo(AGENT_ID);
    Wait.until("re-registered", () -> events.registered.size() == 2);
    assertThat(events.registered.get(1).serverId()).isEqualTo("node-b");
    assertThat(events.reconnectFlags).containsExactly(false, true);
    assertThat(events.disconnects).singleElement().satisfies(d -> {
      assertThat(d.session().serverId()).isEqualTo("node-a");
      assertThat(d.cause()).isPresent();
      assertThat(d.shutdownReason()).isEmpty();
      assertThat(d.willReconnect()).isTrue();
    });
    assertThat(cancels).containsExactly("r1");
    assertThat(cancellationSignals).hasSize(1);

    onB.sendMessage("r2", "hello");
    assertThat(onB.nextResponse().getDone().getFullResponse()).isEqualTo("served by the next gateway");
  }

  @Test
  void aStreamTheGatewayEndsIsReopened() {
    FakeGateway a = gateway("node-a");
    RecordingListener events = new RecordingListener();
    started(builder(a.endpoint()).listener(events));
    AgentConn first = a.nextConnection();

    first.endWith(GrpcStatus.UNAVAILABLE, "node restarting");

    AgentConn second = a.nextConnection();
    assertThat(second.register().getAgentId()).isEqualTo(AGENT_ID);
    Wait.until("re-registered", () -> events.registered.size() == 2);
    assertThat(events.disconnects.get(0).cause()).hasValueSatisfying(c ->
      assertThat(c).isInstanceOfSatisfying(GatewayStatusException.class, e -> assertThat(e.status()).isEqualTo(GrpcStatus.UNAVAILABLE)));
    assertThat(events.retries.get(0).attempt()).isZero();
  }

  @Test
  void aTokenRevokedWhileConnectedStopsTheClient() {
    FakeGateway a = gateway("node-a");
    RecordingListener events = new RecordingListener();
    AgentClient client = started(builder(a.endpoint()).listener(events));
    AgentConn first = a.nextConnection();

    a.requireToken("rotated-token");
    first.endWith(GrpcStatus.UNAUTHENTICATED, "token revoked");

    assertThat(Wait.failure(client.stopped())).isInstanceOf(GatewayStatusException.AuthenticationFailedException.class);
    assertThat(events.stops).hasSize(1);
    a.expectNoConnection(Duration.ofMillis(300));
  }
}
