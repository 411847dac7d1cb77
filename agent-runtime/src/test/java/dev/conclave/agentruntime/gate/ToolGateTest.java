package dev.conclave.agentruntime.gate;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.testing.RecordingResponse;
import dev.conclave.agentruntime.testing.Eventually;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate between a backend and its tools, driven through the SDK's real {@code BackendHandler}
 * and callbacks: allowed, asked and approved, asked and denied, asked and never answered, denied
 * by the policy. The tool runs only when it may, and the model always hears why not.
 */
class ToolGateTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  /** A backend that wants one tool and returns what the gate said. */
  private record OneTool(ToolGate gate, String tool, String input, AtomicInteger ran) implements AgentBackend {
    @Override
    public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
      return gate.run("t1", tool, input, callbacks, () -> {
        ran.incrementAndGet();
        return Future.succeededFuture(ToolOutcome.output("{\"ok\":true}"));
      }).map(out -> BackendResponse.success((out.ran() ? "ran: " : "refused: ") + out.text(), null, 1));
    }
    @Override public Future<Void> cancel(BackendSession session) { return Future.succeededFuture(); }
    @Override public Future<Void> shutdown() { return Future.succeededFuture(); }
  }

  private List<String> run(ToolPolicy policy, String tool, String input, RecordingResponse response, AtomicInteger ran,
                           Duration approvalTimeout) throws Exception {
    ToolGate gate = new ToolGate(vertx, policy, Path.of("/srv/project"), approvalTimeout);
    BackendHandler handler = new BackendHandler(vertx, new OneTool(gate, tool, input, ran));
    handler.handle(RecordingResponse.message("r", "thread", "go"), response);
    Eventually.result(response.terminal());
    return response.events;
  }

  @Test
  void anAllowedToolRunsWithoutAsking() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    List<String> events = run(ToolPolicy.defaults(), "Read", "{\"file_path\":\"a.txt\"}", new RecordingResponse(), ran, Duration.ofSeconds(5));
    assertThat(ran).hasValue(1);
    assertThat(events).containsExactly("tool_use:t1:Read", "tool_state:t1:RUNNING", "tool_result:t1:{\"ok\":true}",
      "tool_state:t1:COMPLETED", "done:ran: {\"ok\":true}");
  }

  @Test
  void anAskedToolThatIsApprovedRuns() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    List<String> events = run(ToolPolicy.defaults(), "Bash", "{\"command\":\"mvn test\"}", new RecordingResponse(), ran, Duration.ofSeconds(5));
    assertThat(ran).hasValue(1);
    assertThat(events).containsExactly("tool_use:t1:Bash", "tool_state:t1:AWAITING_APPROVAL", "approval:t1:Bash",
      "tool_state:t1:RUNNING", "tool_result:t1:{\"ok\":true}", "tool_state:t1:COMPLETED", "done:ran: {\"ok\":true}");
  }

  @Test
  void anAskedToolThatIsDeniedDoesNotRunAndTheModelIsToldSo() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    RecordingResponse response = new RecordingResponse(id -> Future.succeededFuture(new ApprovalDecision(id, false, false, false)));
    List<String> events = run(ToolPolicy.defaults(), "Bash", "{\"command\":\"mvn test\"}", response, ran, Duration.ofSeconds(5));
    assertThat(ran).hasValue(0);
    assertThat(events).containsExactly("tool_use:t1:Bash", "tool_state:t1:AWAITING_APPROVAL", "approval:t1:Bash",
      "tool_state:t1:DENIED", "tool_result:t1:error:denied: the user did not approve Bash",
      "done:refused: denied: the user did not approve Bash");
  }

  @Test
  void anAskedToolNobodyAnswersTimesOutAsDenied() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    RecordingResponse response = new RecordingResponse(id -> Promise.<ApprovalDecision>promise().future());   // never answered
    long start = System.nanoTime();
    List<String> events = run(ToolPolicy.defaults(), "Write", "{\"file_path\":\"a.txt\"}", response, ran, Duration.ofMillis(300));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(ran).hasValue(0);
    assertThat(events).containsExactly("tool_use:t1:Write", "tool_state:t1:AWAITING_APPROVAL", "approval:t1:Write",
      "tool_state:t1:TIMEOUT", "tool_result:t1:error:denied: no approval for Write within 0 s",
      "done:refused: denied: no approval for Write within 0 s");
  }

  @Test
  void aToolThePolicyDeniesIsReportedDeniedWithTheReasonAndNeverAsked() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    List<String> events = run(ToolPolicy.defaults(), "Bash", "{\"command\":\"rm -rf /\"}", new RecordingResponse(), ran, Duration.ofSeconds(5));
    assertThat(ran).hasValue(0);
    assertThat(events).noneMatch(e -> e.startsWith("approval:"));
    assertThat(events.get(0)).isEqualTo("tool_use:t1:Bash");
    assertThat(events.get(1)).isEqualTo("tool_state:t1:DENIED");
    assertThat(events.get(2)).startsWith("tool_result:t1:error:denied by policy: a recursive forced delete");
    assertThat(events.get(3)).startsWith("done:refused: denied by policy");
  }

  @Test
  void approveAllFromAnEarlierDecisionIsHonoured() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    // the SDK answers later approvals of an approve-all request itself, marked automatic
    RecordingResponse response = new RecordingResponse(id -> Future.succeededFuture(new ApprovalDecision(id, true, true, true)));
    run(ToolPolicy.defaults(), "Edit", "{\"file_path\":\"a.txt\"}", response, ran, Duration.ofSeconds(5));
    assertThat(ran).hasValue(1);
  }
}
