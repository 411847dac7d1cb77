package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class StopTest extends ClientTestBase {

  @Test
  void stopCancelsWorkAnswersQueuedMessagesClosesTheStreamAndTheHandler() {
    FakeGateway gw = gateway("node-a");
    List<String> cancels = new CopyOnWriteArrayList<>();
    AtomicInteger closes = new AtomicInteger();
    Promise<Void> forever = Promise.promise();
    RecordingListener events = new RecordingListener();
    AgentClient client = started(builder(gw.endpoint()).listener(events).handler(new AgentHandler() {
      @Override
      public Future<Void> handle(IncomingMessage message, ResponseStream response) {
        return response.text("working").compose(v -> forever.future());
      }

      @Override
      public Future<Void> onCancel(String requestId, String reason) {
        cancels.add(requestId + ":" + reason);
        forever.tryComplete();
        return Future.succeededFuture();
      }

      @Override
      public Future<Void> close() {
        closes.incrementAndGet();
        return Future.succeededFuture();
      }
    }));
    AgentConn conn = gw.nextConnection();
    conn.sendMessage("r1", "a");
    conn.sendMessage("r2", "b");
    assertThat(conn.nextResponse().getText()).isEqualTo("working");
    conn.sync();

    Wait.result(client.stop());

    MessageResponse first = conn.nextResponse();
    MessageResponse second = conn.nextResponse();
    assertThat(List.of(first, second)).allSatisfy(r -> assertThat(r.getCancelled().getReason()).isEqualTo("agent stopping"));
    assertThat(List.of(first.getRequestId(), second.getRequestId())).containsExactlyInAnyOrder("r1", "r2");
    assertThat(cancels).containsExactly("r1:agent stopping");
    assertThat(conn.awaitEnd(FakeGateway.WAIT)).isEqualTo("end");
    assertThat(closes.get()).isEqualTo(1);
    assertThat(events.stops).containsExactly("null");
    assertThat(Wait.result(client.stopped())).isNull();
    assertThat(client.session()).isEmpty();
    gw.expectNoConnection(Duration.ofMillis(200));
    // stopping twice is harmless
    Wait.result(client.stop());
  }

  @Test
  void messagesArrivingWhileStoppingAreAnsweredCancelledNotRun() {
    FakeGateway gw = gateway("node-a");
    List<String> handled = new CopyOnWriteArrayList<>();
    Promise<Void> cancelHookDone = Promise.promise();
    Promise<Void> work = Promise.promise();
    AgentClient client = started(builder(gw.endpoint()).handler(new AgentHandler() {
      @Override
      public Future<Void> handle(IncomingMessage message, ResponseStream response) {
        handled.add(message.requestId());
        return work.future();
      }

      @Override
      public Future<Void> onCancel(String requestId, String reason) {
        return cancelHookDone.future().onComplete(ar -> work.tryComplete());
      }
    }));
    AgentConn conn = gw.nextConnection();
    conn.sendMessage("r1", "a");
    Wait.until("r1 running", () -> handled.contains("r1"));

    Future<Void> stopping = client.stop();
    conn.sendMessage("r2", "arrives while stopping");
    MessageResponse refused = conn.nextResponse();
    assertThat(refused.getRequestId()).isEqualTo("r2");
    assertThat(refused.getCancelled().getReason()).isEqualTo("agent stopping");
    assertThat(stopping.isComplete()).isFalse();

    cancelHookDone.complete();
    Wait.result(stopping);
    MessageResponse r1 = conn.nextResponse();
    assertThat(r1.getRequestId()).isEqualTo("r1");
    assertThat(r1.getCancelled().getReason()).isEqualTo("agent stopping");
    assertThat(handled).containsExactly("r1");
  }
}
