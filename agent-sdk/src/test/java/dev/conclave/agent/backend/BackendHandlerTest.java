package dev.conclave.agent.backend;

import dev.conclave.agent.ClientTestBase;
import dev.conclave.agent.Feature;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.MessageResponse.EventCase;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ToolState;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class BackendHandlerTest extends ClientTestBase {

  private static final Duration RETRY_DELAY = Duration.ofMillis(150);

  private ScriptedBackend backend;
  private AgentConn conn;
  private AgentClient client;

  private void connect(ScriptedBackend b) {
    backend = b;
    FakeGateway gw = gateway("node-a");
    client = started(builder(gw.endpoint()).features(Feature.TOOL_STATES, Feature.TOKEN_USAGE, Feature.CANCELLATION)
      .handler(new BackendHandler(vertx, b, RETRY_DELAY, 100)));
    conn = gw.nextConnection();
  }

  @Test
  void streamsProgressGatesToolsAndRemembersTheSessionPerThread() {
    AtomicReference<Boolean> allowed = new AtomicReference<>();
    connect(new ScriptedBackend()
      .then((prompt, session, cb) -> cb.thinking("planning")
        .compose(v -> cb.canUseTool("tu-1", "bash", "{\"cmd\":\"ls\"}"))
        .compose(ok -> {
          allowed.set(ok);
          return cb.toolStarted("tu-1", "bash", "{\"cmd\":\"ls\"}");
        })
        .compose(v -> cb.toolFinished("tu-1", "a.txt", false))
        .compose(v -> cb.textChunk("Found a.txt"))
        .compose(v -> cb.usage(TokenUsage.of(12, 3)))
        .map(v -> BackendResponse.success("Found a.txt", "sess-1", 2)))
      .then((prompt, session, cb) -> Future.succeededFuture(BackendResponse.success("again", "sess-1", 1))));

    conn.sendMessage("r1", "thread-9", "list files");
    assertThat(conn.nextResponse().getThinking()).isEqualTo("planning");
    assertThat(conn.nextResponse().getToolState().getState()).isEqualTo(ToolState.TOOL_STATE_AWAITING_APPROVAL);
    assertThat(conn.nextResponse().getToolApprovalRequest().getName()).isEqualTo("bash");
    conn.approve("tu-1", true, false);
    List<MessageResponse> rest = conn.responsesUntilTerminal();

    assertThat(rest).extracting(MessageResponse::getEventCase).containsExactly(EventCase.TOOL_USE, EventCase.TOOL_STATE,
      EventCase.TOOL_RESULT, EventCase.TOOL_STATE, EventCase.TEXT, EventCase.USAGE, EventCase.SESSION_INIT, EventCase.DONE);
    assertThat(rest.get(1).getToolState().getState()).isEqualTo(ToolState.TOOL_STATE_RUNNING);
    assertThat(rest.get(3).getToolState().getState()).isEqualTo(ToolState.TOOL_STATE_COMPLETED);
    assertThat(rest.get(6).getSessionInit().getSessionId()).isEqualTo("sess-1");
    assertThat(rest.get(7).getDone().getFullResponse()).isEqualTo("Found a.txt");
    assertThat(allowed.get()).isTrue();
    assertThat(backend.executed.get(0).resumeSessionId()).isEmpty();
    assertThat(backend.executed.get(0).threadId()).isEqualTo("thread-9");

    conn.sendMessage("r2", "thread-9", "again");
    assertThat(conn.responsesUntilTerminal()).extracting(MessageResponse::getEventCase)
      .as("the same session is not announced twice").containsExactly(EventCase.DONE);
    assertThat(backend.executed.get(1).resumeSessionId()).contains("sess-1");
  }

  @Test
  void aDeniedToolIsReportedAndTheBackendToldSo() {
    AtomicReference<Boolean> allowed = new AtomicReference<>();
    connect(new ScriptedBackend().then((prompt, session, cb) -> cb.canUseTool("tu-1", "rm", "{}")
      .map(ok -> {
        allowed.set(ok);
        return BackendResponse.success("skipped", null, 1);
      })));

    conn.sendMessage("r1", "delete");
    conn.nextResponse();
    conn.nextResponse();
    conn.approve("tu-1", false, false);
    List<MessageResponse> rest = conn.responsesUntilTerminal();

    assertThat(rest.get(0).getToolState().getState()).isEqualTo(ToolState.TOOL_STATE_DENIED);
    assertThat(rest.get(1).getDone().getFullResponse()).isEqualTo("skipped");
    assertThat(allowed.get()).isFalse();
  }

  @Test
  void aStaleResumedSessionIsDroppedAndTheRunRepeatedFresh() {
    connect(new ScriptedBackend()
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.success("first", "sess-old", 1)))
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.success("", "sess-old", 0)))
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.success("fresh answer", "sess-new", 1))));

    conn.sendMessage("r1", "t", "hello");
    conn.responsesUntilTerminal();
    conn.sendMessage("r2", "t", "hello again");
    List<MessageResponse> rs = conn.responsesUntilTerminal();

    assertThat(rs).extracting(MessageResponse::getEventCase)
      .containsExactly(EventCase.SESSION_ORPHANED, EventCase.SESSION_INIT, EventCase.DONE);
    assertThat(rs.get(0).getSessionOrphaned().getReason()).contains("sess-old");
    assertThat(rs.get(1).getSessionInit().getSessionId()).isEqualTo("sess-new");
    assertThat(rs.get(2).getDone().getFullResponse()).isEqualTo("fresh answer");
    assertThat(backend.executed).extracting(BackendSession::resumeSessionId)
      .containsExactly(Optional.empty(), Optional.of("sess-old"), Optional.empty());
  }

  @Test
  void aTransientErrorIsRetriedOnceAfterTheDelay() {
    connect(new ScriptedBackend()
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.error("{\"type\":\"overloaded_error\",\"status\":529}")))
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.success("recovered", null, 1))));

    conn.sendMessage("r1", "hi");
    assertThat(conn.nextResponse().getDone().getFullResponse()).isEqualTo("recovered");
    assertThat(backend.executed).hasSize(2);
    long gapMs = (backend.executedAtNanos.get(1) - backend.executedAtNanos.get(0)) / 1_000_000;
    assertThat(gapMs).isGreaterThanOrEqualTo(RETRY_DELAY.toMillis() - 5);
  }

  @Test
  void aPersistentTransientErrorBecomesTheFriendlyMessage() {
    connect(new ScriptedBackend()
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.error("rate_limit_error: slow down")))
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.error("rate_limit_error: slow down"))));

    conn.sendMessage("r1", "hi");
    assertThat(conn.nextResponse().getError()).isEqualTo(BackendHandler.FRIENDLY_UNAVAILABLE);
    conn.expectSilence(Duration.ofMillis(RETRY_DELAY.toMillis() * 2));
    assertThat(backend.executed).hasSize(2);
  }

  @Test
  void aTransientErrorAfterAToolRanIsNotRetriedSoTheToolDoesNotRunTwice() {
    connect(new ScriptedBackend()
      .then((p, s, cb) -> cb.toolStarted("tu-1", "note_set", "{}")
        .compose(v -> cb.toolFinished("tu-1", "ok", false))
        .map(v -> BackendResponse.error("HTTP 529 overloaded_error")))
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.success("must not run", null, 1))));

    conn.sendMessage("r1", "set a note");
    List<MessageResponse> rs = conn.responsesUntilTerminal();
    assertThat(rs.get(rs.size() - 1).getError()).isEqualTo(BackendHandler.FRIENDLY_UNAVAILABLE_AFTER_TOOLS);
    conn.expectSilence(Duration.ofMillis(RETRY_DELAY.toMillis() * 2));
    assertThat(backend.executed).hasSize(1);
  }

  @Test
  void aPermanentErrorIsReportedAtOnce() {
    connect(new ScriptedBackend()
      .then((p, s, cb) -> Future.succeededFuture(BackendResponse.error("authentication_error: invalid x-api-key"))));

    conn.sendMessage("r1", "hi");
    assertThat(conn.nextResponse().getError()).isEqualTo("authentication_error: invalid x-api-key");
    assertThat(backend.executed).hasSize(1);
  }

  @Test
  void cancelInterruptsTheBackendRunAndStopShutsItDown() {
    Promise<BackendResponse> never = Promise.promise();
    connect(new ScriptedBackend().then((p, s, cb) -> cb.textChunk("thinking hard").compose(v -> {
      cb.cancellation().onSuccess(reason -> never.tryComplete(BackendResponse.success("", null, 1)));
      return never.future();
    })));

    conn.sendMessage("r1", "long task");
    assertThat(conn.nextResponse().getText()).isEqualTo("thinking hard");
    conn.cancel("r1", "user_requested");
    assertThat(conn.nextResponse().getCancelled().getReason()).isEqualTo("user_requested");
    assertThat(backend.cancelled).singleElement()
      .satisfies(s -> assertThat(s.message().requestId()).isEqualTo("r1"));

    Wait.result(client.stop());
    assertThat(backend.shutdowns.get()).isEqualTo(1);
  }

  @Test
  void recognisesTransientErrors() {
    assertThat(TransientErrors.retryable("HTTP 500 Internal Server Error")).isTrue();
    assertThat(TransientErrors.retryable("{\"type\":\"api_error\"}")).isTrue();
    assertThat(TransientErrors.retryable("Overloaded")).isTrue();
    assertThat(TransientErrors.retryable("invalid_request_error: prompt too long")).isFalse();
    assertThat(TransientErrors.retryable(null)).isFalse();
    assertThat(TransientErrors.retryable("max_tokens 1500 exceeds the model's limit")).isFalse();
    assertThat(TransientErrors.retryable("request 5291 failed: invalid_request_error")).isFalse();
    assertThat(TransientErrors.retryable("HTTP 529")).isTrue();
  }
}
