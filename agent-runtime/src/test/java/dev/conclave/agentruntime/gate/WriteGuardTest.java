package dev.conclave.agentruntime.gate;

import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.testing.RecordingResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's guard (the swarm's file leases) comes after the policy and the person: it is asked only
 * about a call that may run, and its refusal ends the call DENIED with its reason, which the model
 * hears; the time a CLI waits for the gate grows by the guard's longest wait.
 */
class WriteGuardTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private record OneTool(ToolGate gate, String tool, String input, AtomicInteger ran) implements AgentBackend {
    @Override
    public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
      return gate.run("t1", tool, input, callbacks, () -> {
        ran.incrementAndGet();
        return Future.succeededFuture(ToolOutcome.output("ok"));
      }).map(out -> BackendResponse.success((out.ran() ? "ran: " : "refused: ") + out.text(), null, 1));
    }
    @Override public Future<Void> cancel(BackendSession session) { return Future.succeededFuture(); }
    @Override public Future<Void> shutdown() { return Future.succeededFuture(); }
  }

  private List<String> run(ToolGate gate, String tool, String input, AtomicInteger ran) throws Exception {
    return run(gate, tool, input, ran, new RecordingResponse());
  }

  private List<String> run(ToolGate gate, String tool, String input, AtomicInteger ran, RecordingResponse response) throws Exception {
    new BackendHandler(vertx, new OneTool(gate, tool, input, ran)).handle(RecordingResponse.message("r", "thread", "go"), response);
    response.terminal().await(10, TimeUnit.SECONDS);
    return response.events;
  }

  @Test
  void aGuardRefusalEndsTheCallDeniedAndTheModelIsToldWhy() throws Exception {
    ToolGate gate = new ToolGate(vertx, ToolPolicy.defaults().withMode(GateMode.AUTO), Path.of("/srv/project"), Duration.ofSeconds(5));
    List<String> asked = new CopyOnWriteArrayList<>();
    gate.guard(new WriteGuard() {
      @Override
      public Future<Optional<String>> beforeRun(String toolId, String tool, String inputJson) {
        asked.add(tool);
        return Future.succeededFuture(Optional.of("denied: a.txt is leased by agent b"));
      }

      @Override
      public Duration maxWait() {
        return Duration.ofSeconds(40);
      }
    });
    AtomicInteger ran = new AtomicInteger();
    List<String> events = run(gate, "Write", "{\"file_path\":\"a.txt\"}", ran);
    assertThat(ran).hasValue(0);
    assertThat(events).containsExactly("tool_use:t1:Write", "tool_state:t1:DENIED", "tool_result:t1:error:denied: a.txt is leased by agent b",
      "done:refused: denied: a.txt is leased by agent b");
    assertThat(gate.decisionLimit()).isEqualTo(Duration.ofSeconds(45));

    // a call the policy denies never reaches the guard
    run(gate, "Bash", "{\"command\":\"rm -rf /\"}", ran);
    assertThat(asked).containsExactly("Write");
  }

  @Test
  void aCallTheGuardLetsThroughRunsAfterIt() throws Exception {
    ToolGate gate = new ToolGate(vertx, ToolPolicy.defaults(), Path.of("/srv/project"), Duration.ofSeconds(5));
    List<String> order = new CopyOnWriteArrayList<>();
    gate.guard((toolId, tool, inputJson) -> {
      order.add("guard");
      return Future.succeededFuture(Optional.empty());
    });
    AtomicInteger ran = new AtomicInteger();
    // asked by the default policy and approved: the guard comes after the approval
    RecordingResponse approving = new RecordingResponse(id -> {
      order.add("approval");
      return Future.succeededFuture(new dev.conclave.agent.ApprovalDecision(id, true, false, false));
    });
    List<String> events = run(gate, "Write", "{\"file_path\":\"a.txt\"}", ran, approving);
    assertThat(ran).hasValue(1);
    assertThat(order).containsExactly("approval", "guard");
    assertThat(events).containsExactly("tool_use:t1:Write", "tool_state:t1:AWAITING_APPROVAL", "approval:t1:Write",
      "tool_state:t1:RUNNING", "tool_result:t1:ok", "tool_state:t1:COMPLETED", "done:ran: ok");
    assertThat(gate.decisionLimit()).as("a guard without a wait adds nothing").isEqualTo(Duration.ofSeconds(5));
  }
}
