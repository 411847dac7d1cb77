package dev.conclave.gateway.sessions;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.UsageStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a batch of an agent's events records beside its append, in the same transaction: usage,
 * tool calls and approvals (each in a statement of its own), the approvals that approve_all decides
 * at once, and the state the request ends in. Decides from the batch alone; the {@link EventWriter}
 * runs what it returns.
 */
final class EventDetails {

  private final UsageStore usage;
  private final ApprovalStore approvals;

  EventDetails(UsageStore usage, ApprovalStore approvals) {
    this.usage = usage;
    this.approvals = approvals;
  }

  /** With approve_all in force, each new approval request is decided at once, on the record. */
  static List<LedgerEntry> withAutoDecisions(InFlight flight, List<EventWriter.Pending> batch) {
    List<LedgerEntry> entries = new ArrayList<>(batch.size());
    for (EventWriter.Pending p : batch) {
      entries.add(p.entry());
      if (flight.approveAll() && p.entry().kind() == EventKind.TOOL_APPROVAL) {
        entries.add(Entries.toolDecision(flight.id(), p.response().getToolApprovalRequest().getId(), true, true,
          flight.request().principalId(), p.entry().at()));
      }
    }
    return entries;
  }

  /** The kinds of entry that {@link #recordDetails} records more about, each in a statement of its own. */
  private static final java.util.Set<EventKind> WITH_DETAILS =
    java.util.EnumSet.of(EventKind.USAGE, EventKind.TOOL_USE, EventKind.TOOL_STATE, EventKind.TOOL_APPROVAL);

  Future<Void> recordDetails(SqlClient tx, String agentId, InFlight flight, List<LedgerEntry> entries, long firstSeq) {
    Future<Void> chain = Future.succeededFuture();
    String key = flight.conversationKey();
    for (int i = 0; i < entries.size(); i++) {
      LedgerEntry e = entries.get(i);
      if (!WITH_DETAILS.contains(e.kind())) {
        continue;
      }
      long seq = firstSeq + i;
      switch (e.kind()) {
        case USAGE -> chain = chain.compose(v -> usage.recordUsage(tx, agentId, key, flight.id(), e.view().getUsage()));
        case TOOL_USE -> chain = chain.compose(v -> usage.recordToolUse(tx, agentId, key, flight.id(),
          e.view().getToolUse().getId(), e.view().getToolUse().getName()));
        case TOOL_STATE -> chain = chain.compose(v -> usage.recordToolState(tx, agentId, key, flight.id(), e.view().getToolState()));
        case TOOL_APPROVAL -> {
          var a = e.view().getToolApproval();
          chain = chain.compose(v -> flight.approveAll()
            ? approvals.recordAutoApproved(tx, flight.id(), a.getToolId(), agentId, key, a.getToolName(), a.getInputJson(), seq)
            : approvals.recordPending(tx, flight.id(), a.getToolId(), agentId, key, a.getToolName(), a.getInputJson(), seq));
        }
        default -> throw new IllegalStateException("no details are recorded for " + e.kind());
      }
    }
    return chain;
  }

  /** Whether storing the batch takes statements after the append ({@link #recordDetails}, {@link #expireApprovalsIfTerminal}). */
  static boolean needsDetails(InFlight flight, List<EventWriter.Pending> batch, List<LedgerEntry> entries) {
    return entries.stream().anyMatch(e -> WITH_DETAILS.contains(e.kind()))
      || expiresApprovals(flight, batch);
  }

  /** A batch that ends the request expires its approvals still pending; one that never asked for any has none. */
  private static boolean expiresApprovals(InFlight flight, List<EventWriter.Pending> batch) {
    return batch.get(batch.size() - 1).entry().kind().terminal() && flight.approvalsAsked();
  }

  /** The state the request ends in when the batch ends with its terminal event. */
  static Optional<RequestState> endState(List<EventWriter.Pending> batch) {
    EventKind kind = batch.get(batch.size() - 1).entry().kind();
    if (!kind.terminal()) {
      return Optional.empty();
    }
    return Optional.of(switch (kind) {
      case DONE -> RequestState.DONE;
      case CANCELLED -> RequestState.CANCELLED;
      default -> RequestState.ERROR;
    });
  }

  Future<Void> expireApprovalsIfTerminal(SqlClient tx, InFlight flight, List<EventWriter.Pending> batch) {
    if (!expiresApprovals(flight, batch)) {
      return Future.succeededFuture();
    }
    return approvals.expireOf(tx, flight.id());
  }
}
