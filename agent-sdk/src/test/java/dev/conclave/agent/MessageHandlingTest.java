package dev.conclave.agent;

import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.MessageResponse.EventCase;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.FileAttachment;
import dev.conclave.proto.coven.ServerMessage;
import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class MessageHandlingTest extends ClientTestBase {

  @Test
  void echoHandlerAnswersWithTextUsageAndDone() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler(new EchoHandler()));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "hello there world");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase)
      .containsExactly(EventCase.TEXT, EventCase.USAGE, EventCase.DONE);
    assertThat(rs).allSatisfy(r -> assertThat(r.getRequestId()).isEqualTo("r1"));
    assertThat(rs.get(0).getText()).isEqualTo("echo: hello there world");
    assertThat(rs.get(1).getUsage().getInputTokens()).isEqualTo(3);
    assertThat(rs.get(2).getDone().getFullResponse()).isEqualTo("echo: hello there world");
  }

  @Test
  void handlerReceivesTheTypedMessageWithAttachments() {
    FakeGateway gw = gateway("node-a");
    AtomicReference<IncomingMessage> seen = new AtomicReference<>();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      seen.set(msg);
      return out.done();
    }));
    AgentConn conn = gw.nextConnection();

    conn.send(ServerMessage.newBuilder().setSendMessage(SendMessage.newBuilder()
      .setRequestId("r9").setThreadId("t-42").setSender("bob").setContent("look at this")
      .addAttachments(FileAttachment.newBuilder().setFilename("a.txt").setMimeType("text/plain")
        .setData(ByteString.copyFromUtf8("abc")))).build());
    conn.responsesUntilTerminal();

    IncomingMessage m = seen.get();
    assertThat(m.requestId()).isEqualTo("r9");
    assertThat(m.threadId()).isEqualTo("t-42");
    assertThat(m.sender()).isEqualTo("bob");
    assertThat(m.content()).isEqualTo("look at this");
    assertThat(m.attachments()).singleElement().satisfies(a -> {
      assertThat(a.filename()).isEqualTo("a.txt");
      assertThat(a.mimeType()).isEqualTo("text/plain");
      assertThat(new String(a.data(), StandardCharsets.UTF_8)).isEqualTo("abc");
    });
  }

  @Test
  void everyEventKindReachesTheWireWithTheRequestId() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).features(Feature.TOKEN_USAGE, Feature.TOOL_STATES).handler((msg, out) ->
      out.thinking("reading")
        .compose(v -> out.text("part one "))
        .compose(v -> out.toolUse("tool-1", "read_file", "{\"path\":\"a\"}"))
        .compose(v -> out.toolState("tool-1", ToolState.RUNNING, null))
        .compose(v -> out.toolResult("tool-1", "contents", false))
        .compose(v -> out.toolState("tool-1", ToolState.FAILED, "disk on fire"))
        .compose(v -> out.usage(new TokenUsage(10, 20, 3, 4, 5)))
        .compose(v -> out.file("out.png", "image/png", new byte[] {1, 2, 3}))
        .compose(v -> out.sessionInit("sess-1"))
        .compose(v -> out.sessionOrphaned("expired"))
        .compose(v -> out.done("full answer"))));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("req-77", "go");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).allSatisfy(r -> assertThat(r.getRequestId()).isEqualTo("req-77"));
    assertThat(rs).extracting(MessageResponse::getEventCase).containsExactly(
      EventCase.THINKING, EventCase.TEXT, EventCase.TOOL_USE, EventCase.TOOL_STATE, EventCase.TOOL_RESULT,
      EventCase.TOOL_STATE, EventCase.USAGE, EventCase.FILE, EventCase.SESSION_INIT, EventCase.SESSION_ORPHANED,
      EventCase.DONE);
    assertThat(rs.get(0).getThinking()).isEqualTo("reading");
    assertThat(rs.get(1).getText()).isEqualTo("part one ");
    assertThat(rs.get(2).getToolUse().getName()).isEqualTo("read_file");
    assertThat(rs.get(2).getToolUse().getInputJson()).isEqualTo("{\"path\":\"a\"}");
    assertThat(rs.get(3).getToolState().getState()).isEqualTo(dev.conclave.proto.coven.ToolState.TOOL_STATE_RUNNING);
    assertThat(rs.get(3).getToolState().hasDetail()).isFalse();
    assertThat(rs.get(4).getToolResult().getOutput()).isEqualTo("contents");
    assertThat(rs.get(5).getToolState().getState()).isEqualTo(dev.conclave.proto.coven.ToolState.TOOL_STATE_FAILED);
    assertThat(rs.get(5).getToolState().getDetail()).isEqualTo("disk on fire");
    assertThat(rs.get(6).getUsage().getOutputTokens()).isEqualTo(20);
    assertThat(rs.get(6).getUsage().getThinkingTokens()).isEqualTo(5);
    assertThat(rs.get(7).getFile().getData().toByteArray()).containsExactly(1, 2, 3);
    assertThat(rs.get(8).getSessionInit().getSessionId()).isEqualTo("sess-1");
    assertThat(rs.get(9).getSessionOrphaned().getReason()).isEqualTo("expired");
    assertThat(rs.get(10).getDone().getFullResponse()).isEqualTo("full answer");
  }

  @Test
  void errorAndCancelledAreTerminalEventsToo() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler((msg, out) ->
      msg.content().equals("fail") ? out.error("no can do") : out.cancelled("changed my mind")));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "fail");
    assertThat(conn.responsesUntilTerminal()).singleElement().satisfies(r -> assertThat(r.getError()).isEqualTo("no can do"));
    conn.sendMessage("r2", "other");
    assertThat(conn.responsesUntilTerminal()).singleElement()
      .satisfies(r -> assertThat(r.getCancelled().getReason()).isEqualTo("changed my mind"));
  }

  @Test
  void messagesArrivingBackToBackAreHandledStrictlyOneAtATime() {
    FakeGateway gw = gateway("node-a");
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    List<String> started = new CopyOnWriteArrayList<>();
    Map<String, Promise<Void>> release = new ConcurrentHashMap<>();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
      started.add(msg.requestId());
      Promise<Void> gate = Promise.promise();
      release.put(msg.requestId(), gate);
      return out.text("working on " + msg.requestId())
        .compose(v -> gate.future())
        .compose(v -> out.done(msg.requestId()))
        .onComplete(ar -> running.decrementAndGet());
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "first");
    conn.sendMessage("r2", "second");
    conn.sendMessage("r3", "third");
    assertThat(conn.nextResponse().getText()).isEqualTo("working on r1");
    conn.expectSilence(Duration.ofMillis(200));
    assertThat(started).containsExactly("r1");

    release.get("r1").complete();   // completed from the test thread, on purpose
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("r1");
    assertThat(conn.nextResponse().getText()).isEqualTo("working on r2");
    Wait.until("r2 started", () -> release.containsKey("r2"));
    release.get("r2").complete();
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("r2");
    assertThat(conn.nextResponse().getText()).isEqualTo("working on r3");
    Wait.until("r3 started", () -> release.containsKey("r3"));
    release.get("r3").complete();
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("r3");

    assertThat(started).containsExactly("r1", "r2", "r3");
    assertThat(maxRunning.get()).isEqualTo(1);
  }

  @Test
  void exactlyOneTerminalIsSentAndNothingFollowsIt() {
    FakeGateway gw = gateway("node-a");
    AtomicReference<Throwable> secondTerminal = new AtomicReference<>();
    AtomicReference<Throwable> textAfter = new AtomicReference<>();
    AtomicReference<Throwable> approvalAfter = new AtomicReference<>();
    AtomicReference<Boolean> endedSeen = new AtomicReference<>();
    started(builder(gw.endpoint()).handler((msg, out) -> out.done("first")
      .compose(v -> out.error("second").transform(ar -> {
        secondTerminal.set(ar.cause());
        return out.text("late");
      }))
      .transform(ar -> {
        textAfter.set(ar.cause());
        return out.requestApproval("t1", "x", "{}");
      })
      .transform(ar -> {
        approvalAfter.set(ar.cause());
        endedSeen.set(out.isEnded());
        return Future.succeededFuture();
      })));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "hi");
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("first");
    conn.expectSilence(Duration.ofMillis(200));

    assertThat(secondTerminal.get()).isInstanceOfSatisfying(RequestEndedException.class,
      e -> assertThat(e.requestId()).isEqualTo("r1"));
    assertThat(textAfter.get()).isInstanceOf(RequestEndedException.class);
    assertThat(approvalAfter.get()).isInstanceOf(RequestEndedException.class);
    assertThat(endedSeen.get()).isTrue();
  }

  @Test
  void aStaleStreamFromAnEarlierRequestCannotWriteIntoTheNextOne() {
    FakeGateway gw = gateway("node-a");
    AtomicReference<ResponseStream> first = new AtomicReference<>();
    AtomicReference<Throwable> staleWrite = new AtomicReference<>();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      if (first.compareAndSet(null, out)) {
        return out.done();
      }
      return first.get().text("from the past").transform(ar -> {
        staleWrite.set(ar.cause());
        return out.done("second");
      });
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    assertThat(conn.nextResponse().getRequestId()).isEqualTo("r1");
    conn.sendMessage("r2", "b");
    MessageResponse r = conn.nextResponse();
    assertThat(r.getRequestId()).isEqualTo("r2");
    assertThat(r.getDone().getFullResponse()).isEqualTo("second");
    assertThat(staleWrite.get()).isInstanceOf(RequestEndedException.class);
  }

  @Test
  void handlerFailureBecomesAFriendlyError() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler((msg, out) -> out.text("partial")
      .compose(v -> Future.failedFuture(new IllegalStateException("model quota exhausted")))));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "hi");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase).containsExactly(EventCase.TEXT, EventCase.ERROR);
    assertThat(rs.get(1).getError()).isEqualTo("The agent could not complete this request: model quota exhausted");
  }

  @Test
  void handlerThatThrowsBecomesAnErrorAndTheAgentKeepsServing() {
    FakeGateway gw = gateway("node-a");
    AtomicInteger calls = new AtomicInteger();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      if (calls.incrementAndGet() == 1) {
        throw new NullPointerException();
      }
      return out.done("fine");
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "boom");
    assertThat(conn.nextResponse().getError()).isEqualTo("The agent could not complete this request: NullPointerException");
    conn.sendMessage("r2", "again");
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("fine");
  }

  @Test
  void handlerThatSucceedsWithoutATerminalGetsDoneWithItsText() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler((msg, out) -> out.text("Hello, ").compose(v -> out.text("world"))));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "hi");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase).containsExactly(EventCase.TEXT, EventCase.TEXT, EventCase.DONE);
    assertThat(rs.get(2).getDone().getFullResponse()).isEqualTo("Hello, world");
  }

  @Test
  void sinkMethodsWorkFromOtherThreads() throws Exception {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).handler((msg, out) -> {
      Promise<Void> finished = Promise.promise();
      Thread worker = new Thread(() -> {
        for (int i = 0; i < 50; i++) {
          Wait.result(out.text("chunk-" + i));
        }
        Wait.result(out.done());
        finished.complete();
      });
      worker.start();
      return finished.future();
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "go");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).hasSize(51);
    for (int i = 0; i < 50; i++) {
      assertThat(rs.get(i).getText()).isEqualTo("chunk-" + i);
    }
  }

  @Test
  void aRepeatedRequestIdIsNotHandledTwice() {
    FakeGateway gw = gateway("node-a");
    AtomicInteger calls = new AtomicInteger();
    Promise<Void> gate = Promise.promise();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      calls.incrementAndGet();
      return gate.future().compose(v -> out.done());
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    conn.sendMessage("r1", "a again");
    conn.sync();
    gate.complete();
    assertThat(conn.nextResponse().hasDone()).isTrue();
    conn.expectSilence(Duration.ofMillis(200));
    assertThat(calls.get()).isEqualTo(1);
  }

  @Test
  void messagesBeyondTheQueueBoundAreRefusedWithAnError() {
    FakeGateway gw = gateway("node-a");
    Promise<Void> gate = Promise.promise();
    List<String> handled = new CopyOnWriteArrayList<>();
    started(builder(gw.endpoint()).maxQueuedMessages(1).handler((msg, out) -> {
      handled.add(msg.requestId());
      return gate.future().compose(v -> out.done());
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "a");
    conn.sendMessage("r2", "b");
    conn.sendMessage("r3", "c");
    MessageResponse refused = conn.nextResponse();
    assertThat(refused.getRequestId()).isEqualTo("r3");
    assertThat(refused.getEventCase()).isEqualTo(EventCase.ERROR);
    assertThat(refused.getError()).contains("busy");

    gate.complete();
    assertThat(conn.nextResponse().getRequestId()).isEqualTo("r1");
    assertThat(conn.nextResponse().getRequestId()).isEqualTo("r2");
    assertThat(handled).containsExactly("r1", "r2");
  }
}
