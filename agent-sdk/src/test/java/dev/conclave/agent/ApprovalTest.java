package dev.conclave.agent;

import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class ApprovalTest extends ClientTestBase {

  @Test
  void approvalRequestWaitsForTheMatchingResponse() {
    FakeGateway gw = gateway("node-a");
    List<ApprovalDecision> decisions = new CopyOnWriteArrayList<>();
    started(builder(gw.endpoint()).handler((msg, out) ->
      out.requestApproval("tool-1", "rm", "{\"path\":\"/tmp/x\"}")
        .compose(d -> {
          decisions.add(d);
          return out.requestApproval("tool-2", "curl", "{}");
        })
        .compose(d -> {
          decisions.add(d);
          return out.done();
        })));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "clean up");
    MessageResponse ask1 = conn.nextResponse();
    assertThat(ask1.getRequestId()).isEqualTo("r1");
    assertThat(ask1.getToolApprovalRequest().getId()).isEqualTo("tool-1");
    assertThat(ask1.getToolApprovalRequest().getName()).isEqualTo("rm");
    assertThat(ask1.getToolApprovalRequest().getInputJson()).isEqualTo("{\"path\":\"/tmp/x\"}");
    conn.expectSilence(Duration.ofMillis(150));
    assertThat(decisions).isEmpty();

    conn.approve("some-other-tool", true, false);   // not pending: ignored
    conn.approve("tool-1", true, false);
    MessageResponse ask2 = conn.nextResponse();
    assertThat(ask2.getToolApprovalRequest().getId()).isEqualTo("tool-2");
    conn.approve("tool-2", false, false);
    assertThat(conn.nextResponse().hasDone()).isTrue();

    assertThat(decisions).containsExactly(
      new ApprovalDecision("tool-1", true, false, false),
      new ApprovalDecision("tool-2", false, false, false));
  }

  @Test
  void approveAllGrantsLaterApprovalsOfTheSameRequestWithoutAsking() {
    FakeGateway gw = gateway("node-a");
    List<ApprovalDecision> decisions = new CopyOnWriteArrayList<>();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      Future<Void> chain = Future.succeededFuture();
      for (String id : List.of("t1", "t2", "t3")) {
        chain = chain.compose(v -> out.requestApproval(id, "edit", "{}")).map(d -> {
          decisions.add(d);
          return null;
        });
      }
      return chain.compose(v -> out.done());
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "edit files");
    assertThat(conn.nextResponse().getToolApprovalRequest().getId()).isEqualTo("t1");
    conn.approve("t1", true, true);
    assertThat(conn.nextResponse().hasDone()).as("t2 and t3 are not asked").isTrue();

    assertThat(decisions).containsExactly(
      new ApprovalDecision("t1", true, true, false),
      new ApprovalDecision("t2", true, true, true),
      new ApprovalDecision("t3", true, true, true));

    // approve-all ends with its request: the next request asks again
    conn.sendMessage("r2", "edit again");
    assertThat(conn.nextResponse().getToolApprovalRequest().getId()).isEqualTo("t1");
    conn.approve("t1", true, false);
    assertThat(conn.nextResponse().getToolApprovalRequest().getId()).isEqualTo("t2");
  }

  @Test
  void pendingApprovalFailsWhenItsRequestEnds() {
    FakeGateway gw = gateway("node-a");
    AtomicReference<Future<ApprovalDecision>> pending = new AtomicReference<>();
    started(builder(gw.endpoint()).features(Feature.CANCELLATION).handler((msg, out) -> {
      pending.set(out.requestApproval("t1", "deploy", "{}"));
      return out.cancellation().mapEmpty();
    }));
    AgentConn conn = gw.nextConnection();

    conn.sendMessage("r1", "deploy");
    assertThat(conn.nextResponse().hasToolApprovalRequest()).isTrue();
    conn.cancel("r1", "user_requested");
    MessageResponse terminal = conn.nextResponse();
    assertThat(terminal.hasCancelled()).as("got %s", terminal).isTrue();
    assertThat(terminal.getCancelled().getReason()).isEqualTo("user_requested");

    assertThat(Wait.failure(pending.get())).isInstanceOf(RequestEndedException.class);
  }
}
