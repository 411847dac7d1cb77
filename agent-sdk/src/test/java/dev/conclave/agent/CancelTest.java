package dev.conclave.agent;

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
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class CancelTest extends ClientTestBase {

  /** Streams text until told to stop; ends the request itself when cancelled. */
  private static final class PoliteHandler implements AgentHandler {
    final List<String> cancels = new CopyOnWriteArrayList<>();
    final Promise<Void> stop = Promise.promise();
    volatile ResponseStream out;

    @Override
    public Future<Void> handle(IncomingMessage message, ResponseStream response) {
      out = response;
      return response.text("working").compose(v -> stop.future());
    }

    @Override
    public Future<Void> onCancel(String requestId, String reason) {
      cancels.add(requestId + ":" + reason);
      return out.cancelled("stopped: " + reason).onComplete(ar -> stop.tryComplete());
    }
  }

  @Test
  void cancelHookRunsAndTheHandlersOwnTerminalIsSent() {
    FakeGateway gw = gateway("node-a");
    PoliteHandler handler = new PoliteHandler();
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler(handler));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "long job");
    assertThat(conn.nextResponse().getText()).isEqualTo("working");
    conn.cancel("r1", "user_requested");

    MessageResponse terminal = conn.nextResponse();
    assertThat(terminal.getRequestId()).isEqualTo("r1");
    assertThat(terminal.getCancelled().getReason()).isEqualTo("stopped: user_requested");
    conn.expectSilence(Duration.ofMillis(200));
    assertThat(handler.cancels).containsExactly("r1:user_requested");
  }

  @Test
  void withoutAHookTheRequestEndsCancelledAndTheHandlerSeesTheCancellation() {
    FakeGateway gw = gateway("node-a");
    AtomicReference<String> seenReason = new AtomicReference<>();
    AtomicReference<Throwable> lateWrite = new AtomicReference<>();
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler((msg, out) ->
      out.text("working")
        .compose(v -> out.cancellation())
        .compose(reason -> {
          seenReason.set(reason);
          return vertx.timer(50);
        })
        .compose(t -> {
          return out.text("ignoring the cancel").transform(ar -> {
            lateWrite.set(ar.cause());
            return Future.succeededFuture();
          });
        })));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "long job");
    assertThat(conn.nextResponse().getText()).isEqualTo("working");
    conn.cancel("r1", "user_requested");

    assertThat(conn.nextResponse().getCancelled().getReason()).isEqualTo("user_requested");
    conn.expectSilence(Duration.ofMillis(200));
    Wait.until("handler saw the cancellation", () -> lateWrite.get() != null);
    assertThat(seenReason.get()).isEqualTo("user_requested");
    assertThat(lateWrite.get()).isInstanceOf(RequestEndedException.class);

    // the agent keeps serving
    conn.sendMessage("r2", "next");
    assertThat(conn.nextResponse().getText()).isEqualTo("working");
  }

  @Test
  void aHandlerThatGivesUpOnCancellationEndsTheRequestCancelledNotDone() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler((msg, out) ->
      out.text("working").compose(v -> out.cancellation()).mapEmpty()));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "long job");
    assertThat(conn.nextResponse().getText()).isEqualTo("working");
    conn.cancel("r1", "user_requested");

    MessageResponse terminal = conn.nextResponse();
    assertThat(terminal.hasCancelled()).as("got %s", terminal).isTrue();
    assertThat(terminal.getCancelled().getReason()).isEqualTo("user_requested");
    conn.expectSilence(Duration.ofMillis(200));
  }

  @Test
  void cancellingAQueuedRequestAnswersItWithoutRunningIt() {
    FakeGateway gw = gateway("node-a");
    List<String> handled = new CopyOnWriteArrayList<>();
    Promise<Void> gate = Promise.promise();
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler((msg, out) -> {
      handled.add(msg.requestId());
      return gate.future().compose(v -> out.done());
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    conn.sendMessage("r2", "b");
    Wait.until("r1 started", () -> handled.contains("r1"));
    conn.cancel("r2", "superseded");
    MessageResponse r = conn.nextResponse();
    assertThat(r.getRequestId()).isEqualTo("r2");
    assertThat(r.getCancelled().getReason()).isEqualTo("superseded");

    gate.complete();
    assertThat(conn.nextResponse().getRequestId()).isEqualTo("r1");
    conn.expectSilence(Duration.ofMillis(200));
    assertThat(handled).containsExactly("r1");
  }

  @Test
  void cancelIsIgnoredWhenCancellationWasNotDeclared() {
    FakeGateway gw = gateway("node-a");
    List<String> cancels = new CopyOnWriteArrayList<>();
    Promise<Void> gate = Promise.promise();
    started(builder(gw.endpoint()).handler(new AgentHandler() {
      @Override
      public Future<Void> handle(IncomingMessage message, ResponseStream response) {
        return gate.future().compose(v -> response.done("finished anyway"));
      }

      @Override
      public Future<Void> onCancel(String requestId, String reason) {
        cancels.add(requestId);
        return Future.succeededFuture();
      }
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    conn.cancel("r1", "user_requested");
    conn.expectSilence(Duration.ofMillis(200));
    gate.complete();

    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("finished anyway");
    assertThat(cancels).isEmpty();
  }

  @Test
  void cancelForAnotherRequestLeavesTheCurrentOneAlone() {
    FakeGateway gw = gateway("node-a");
    Promise<Void> gate = Promise.promise();
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler((msg, out) ->
      gate.future().compose(v -> out.done("ok"))));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    conn.cancel("r-unknown", "user_requested");
    conn.expectSilence(Duration.ofMillis(200));
    gate.complete();
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("ok");
  }
}
