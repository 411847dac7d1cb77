package dev.conclave.gateway.sessions;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Persists the in-flight request's events in order, in batches, through the {@link LedgerWriter}
 * (which publishes them live once committed). A batch starts once the messages read with its first
 * event have been handled, so what an agent sends back to back (its chunks and done) is one batch.
 *
 * <p>Backpressure: while too many events wait, the session stops reading the agent's stream, so a
 * slow database slows the agent down instead of filling memory. Exactly once: each batch checks, in
 * its transaction, that the request is still in flight for this session and how many of its events
 * are already stored, so a retried batch whose first attempt did commit is not stored twice.
 */
final class EventWriter {

  private static final Logger LOG = LoggerFactory.getLogger(EventWriter.class);
  static final int PAUSE_AT = 64;
  private static final int MAX_BATCH = 256;
  private static final int MAX_ATTEMPTS = 4;

  private enum Result { WRITTEN, ALREADY_WRITTEN, DISCARDED, OUT_OF_STEP }

  private record Pending(MessageResponse response, LedgerEntry entry) {
  }

  private record Outcome(Result result, long firstSeq, List<LedgerEntry> entries) {
  }

  private final AgentSession session;
  private final Vertx vertx;
  private final LedgerWriter ledgerWriter;
  private final RequestStore requests;
  private final UsageStore usage;
  private final ApprovalStore approvals;
  private final SessionMetrics metrics;
  private final Terminations terminations;
  /** Starts at one slot and grows with a reply's events: an idle agent's writer holds an empty queue. */
  private final ArrayDeque<Pending> queue = new ArrayDeque<>(0);
  private boolean writing;
  /** A flush is queued behind the reads in progress. */
  private boolean flushQueued;

  EventWriter(AgentSession session, Vertx vertx, LedgerWriter ledgerWriter, RequestStore requests, UsageStore usage,
              ApprovalStore approvals, SessionMetrics metrics, Terminations terminations) {
    this.session = session;
    this.vertx = vertx;
    this.ledgerWriter = ledgerWriter;
    this.requests = requests;
    this.usage = usage;
    this.approvals = approvals;
    this.metrics = metrics;
    this.terminations = terminations;
  }

  boolean idle() {
    return !writing && !flushQueued && queue.isEmpty();
  }

  void accept(MessageResponse response, LedgerEntry entry) {
    queue.add(new Pending(response, entry));
    if (queue.size() >= PAUSE_AT) {
      session.pauseInbound();
    }
    if (!writing && !flushQueued) {
      // after the messages read together with this one: an agent's burst (chunks and done, sent
      // back to back) becomes one batch, one statement, instead of its first event alone and then the rest
      flushQueued = true;
      session.later(() -> {
        flushQueued = false;
        flush();
        // (discarded meanwhile, and its terminal came while this flush was queued)
        endIfDiscardedAndFinished(session.inFlight());
      });
    }
  }

  /**
   * Ends a request the gateway discarded and the agent has finished, once nothing of it is queued or
   * being written here: the one place that frees the session after a discard.
   */
  void endIfDiscardedAndFinished(InFlight flight) {
    if (idle() && flight != null && flight.discardedAndFinished()) {
      session.requestEnded(flight);
    }
  }

  private void flush() {
    InFlight flight = session.inFlight();
    if (writing || queue.isEmpty() || flight == null) {
      return;
    }
    List<Pending> batch = new ArrayList<>();
    while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
      batch.add(queue.poll());
    }
    writing = true;
    persist(flight, batch, 1);
  }

  private void persist(InFlight flight, List<Pending> batch, int attempt) {
    List<LedgerEntry> entries = withAutoDecisions(flight, batch);
    if (entries.stream().anyMatch(e -> e.kind() == EventKind.TOOL_APPROVAL)) {
      flight.approvalAsked();
    }
    long expected = flight.persistedEvents();
    LedgerWriter.Unit<Outcome> unit = tx -> tx.appendForRequest(flight.conversationKey(), session.agentId(), entries, flight.id(),
        session.epoch(), expected, batch.size(), endState(batch)).compose(done -> {
      if (done.stored().isEmpty()) {
        return Future.succeededFuture(new Outcome(Result.DISCARDED, 0, entries));
      }
      if (done.firstSeq().isPresent()) {
        long firstSeq = done.firstSeq().get();
        return recordDetails(tx.sql(), flight, entries, firstSeq)
          .compose(v -> expireApprovalsIfTerminal(tx.sql(), flight, batch))
          .map(v -> new Outcome(Result.WRITTEN, firstSeq, entries));
      }
      if (done.stored().get() == expected + batch.size()) {
        return Future.succeededFuture(new Outcome(Result.ALREADY_WRITTEN, 0, entries));
      }
      LOG.error("request event count disagrees; dropping batch and ending the request agent={} request={} stored={} expected={}",
        session.agentId(), flight.id(), done.stored().get(), expected);
      return Future.succeededFuture(new Outcome(Result.OUT_OF_STEP, 0, entries));
    });
    // a batch of text and done (the usual one) is the append alone, one statement: it can go out with
    // the other writes of its transaction, or alone without a transaction block; usage, tools and
    // approvals add statements that wait for the append
    (needsDetails(flight, batch, entries) ? ledgerWriter.write(session.agentId(), unit) : ledgerWriter.writeStatement(session.agentId(), unit))
      .onComplete(ar -> {
        if (ar.succeeded()) {
          writing = false;
          applied(flight, batch, ar.result());
        } else if (attempt < MAX_ATTEMPTS) {
          long delay = 100L << (2 * attempt);
          LOG.warn("persisting agent events failed; retrying agent={} request={} attempt={} in={}ms error={}",
            session.agentId(), flight.id(), attempt, delay, ar.cause().getMessage());
          vertx.setTimer(delay, t -> persist(flight, batch, attempt + 1));
        } else {
          writing = false;
          LOG.error("persisting agent events failed; closing the stream agent={} request={}", session.agentId(), flight.id(), ar.cause());
          session.failUnavailable("the gateway could not store this agent's events; reconnect");
        }
      });
  }

  private void applied(InFlight flight, List<Pending> batch, Outcome outcome) {
    Pending last = batch.get(batch.size() - 1);
    boolean terminal = last.entry().kind().terminal();
    if (outcome.result() == Result.OUT_OF_STEP) {
      endOutOfStep(flight);
    }
    if (outcome.result() == Result.DISCARDED || outcome.result() == Result.OUT_OF_STEP) {
      flight.discard();
      batch.forEach(p -> metrics.dropped(SessionMetrics.DropReason.CANCELLED_REQUEST, session.agentId(), flight.id().toString()));
      queue.clear();
    } else {
      flight.persisted(batch.size());
      metrics.persisted(outcome.entries().size());
      if (outcome.result() == Result.WRITTEN) {
        answerAutoApprovals(flight, outcome.entries());
      }
    }
    if (queue.size() < PAUSE_AT / 2) {
      session.resumeInbound();
    }
    if (terminal || flight.discardedAndFinished()) {
      session.requestEnded(flight);
    } else {
      flush();
    }
  }

  /**
   * The request's stored events are not the ones this session wrote: it ends with an error its
   * client sees, and the agent's later events for it are dropped. Once it has ended, the session
   * looks for the agent's next request.
   */
  private void endOutOfStep(InFlight flight) {
    terminations.outOfStep(session.agentId(), flight.id(), session.epoch()).onComplete(ar -> session.runOnContext(() -> {
      if (ar.failed()) {
        LOG.error("could not end a request whose events are out of step agent={} request={}", session.agentId(), flight.id(), ar.cause());
        session.failUnavailable("the gateway could not store this agent's events; reconnect");
        return;
      }
      session.wake();
    }));
  }

  /** With approve_all in force, each new approval request is decided at once, on the record. */
  private List<LedgerEntry> withAutoDecisions(InFlight flight, List<Pending> batch) {
    List<LedgerEntry> entries = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      entries.add(p.entry());
      if (flight.approveAll() && p.entry().kind() == EventKind.TOOL_APPROVAL) {
        entries.add(Entries.toolDecision(flight.id(), p.response().getToolApprovalRequest().getId(), true, true,
          flight.request().principalId(), p.entry().at()));
      }
    }
    return entries;
  }

  private void answerAutoApprovals(InFlight flight, List<LedgerEntry> entries) {
    for (LedgerEntry e : entries) {
      if (e.kind() == EventKind.TOOL_APPROVAL && flight.approveAll()) {
        String toolId = e.view().getToolApproval().getToolId();
        session.send(ServerMessage.newBuilder()
          .setToolApproval(ToolApprovalResponse.newBuilder().setId(toolId).setApproved(true).setApproveAll(true)).build());
      }
    }
  }

  /** The kinds of entry that {@link #recordDetails} records more about, each in a statement of its own. */
  private static final java.util.Set<EventKind> WITH_DETAILS =
    java.util.EnumSet.of(EventKind.USAGE, EventKind.TOOL_USE, EventKind.TOOL_STATE, EventKind.TOOL_APPROVAL);

  private Future<Void> recordDetails(SqlClient tx, InFlight flight, List<LedgerEntry> entries, long firstSeq) {
    Future<Void> chain = Future.succeededFuture();
    String agentId = session.agentId();
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
  private static boolean needsDetails(InFlight flight, List<Pending> batch, List<LedgerEntry> entries) {
    return entries.stream().anyMatch(e -> WITH_DETAILS.contains(e.kind()))
      || expiresApprovals(flight, batch);
  }

  /** A batch that ends the request expires its approvals still pending; one that never asked for any has none. */
  private static boolean expiresApprovals(InFlight flight, List<Pending> batch) {
    return batch.get(batch.size() - 1).entry().kind().terminal() && flight.approvalsAsked();
  }

  /** The state the request ends in when the batch ends with its terminal event. */
  private static Optional<RequestState> endState(List<Pending> batch) {
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

  private Future<Void> expireApprovalsIfTerminal(SqlClient tx, InFlight flight, List<Pending> batch) {
    if (!expiresApprovals(flight, batch)) {
      return Future.succeededFuture();
    }
    return approvals.expireOf(tx, flight.id());
  }
}
