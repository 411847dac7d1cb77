package dev.conclave.gateway.control;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.Failures;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ApproveToolResponse;
import io.vertx.core.Future;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Humans' answers to agents' tool approval requests. The decision is recorded (exactly once: only
 * a pending approval of an in-flight request can be decided) and then delivered to the agent's
 * session wherever it runs; {@code approve_all} holds for the rest of that request.
 */
public final class Approvals {

  private final LedgerWriter writer;
  private final ApprovalStore approvals;
  private final RequestStore requests;
  private final AgentRouter router;
  private final Clock clock;

  public Approvals(LedgerWriter writer, ApprovalStore approvals, RequestStore requests, AgentRouter router, Clock clock) {
    this.writer = writer;
    this.approvals = approvals;
    this.requests = requests;
    this.router = router;
    this.clock = clock;
  }

  public Future<ApproveToolResponse> decide(Caller caller, ApproveToolRequest r) {
    if (r.getAgentId().isEmpty() || r.getToolId().isEmpty()) {
      return Future.succeededFuture(failure("agent_id and tool_id are required"));
    }
    boolean all = r.getApproveAll() && r.getApproved();
    return writer.write(r.getAgentId(), tx -> approvals.decide(tx.sql(), r.getAgentId(), r.getToolId(), r.getApproved(), caller.principalId())
      .compose(decided -> {
        if (decided.isEmpty()) {
          return Future.succeededFuture(Optional.<ApprovalStore.Decided>empty());
        }
        LedgerEntry entry = Entries.toolDecision(decided.get().requestId(), r.getToolId(), r.getApproved(), all, caller.principalId(), clock.instant());
        Future<Void> approveAll = all ? requests.setApproveAll(tx.sql(), decided.get().requestId()) : Future.succeededFuture();
        return approveAll.compose(v -> tx.append(decided.get().conversationKey(), r.getAgentId(), List.of(entry)))
          .map(seq -> decided);
      }))
      .compose(decided -> decided.isEmpty()
        ? Future.succeededFuture(failure("no pending approval for tool '" + r.getToolId() + "' of agent '" + r.getAgentId() + "'"))
        : deliver(r, decided.get(), all));
  }

  private Future<ApproveToolResponse> deliver(ApproveToolRequest r, ApprovalStore.Decided decided, boolean all) {
    return requests.find(decided.requestId()).compose(rec -> router.owner(r.getAgentId()).compose(owner -> {
      if (owner.isEmpty() || rec.isEmpty() || rec.get().dispatchEpoch().isEmpty() || owner.get().epoch() != rec.get().dispatchEpoch().get()) {
        return Future.succeededFuture(failure("decision recorded, but the agent's session that asked is gone"));
      }
      return router.send(owner.get(), NodeCommand.approve(r.getAgentId(), owner.get().epoch(), decided.requestId(), r.getToolId(), r.getApproved(), all))
        .map(reply -> ApproveToolResponse.newBuilder().setSuccess(true).build())
        .recover(err -> Future.succeededFuture(failure("decision recorded, but it could not be delivered: " + Failures.classify(err).detail())));
    }));
  }

  private static ApproveToolResponse failure(String error) {
    return ApproveToolResponse.newBuilder().setSuccess(false).setError(error).build();
  }
}
