package dev.conclave.gateway.sessions;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Checks each of the agent's MessageResponses against the request in flight, then persists the
 * accepted ones in order, in batches, through the {@link LedgerWriter} (which publishes them live
 * once committed). Events for unknown or finished requests, for another agent's request, or of an
 * unknown kind are dropped and counted; events of a request the gateway already ended are discarded
 * until the agent's own terminal event frees the session for the next request.
 *
 * <p>Batches A batch starts once the messages read with its first
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

  record Pending(MessageResponse response, LedgerEntry entry) {
  }

  private record Outcome(Result result, long firstSeq, List<LedgerEntry> entries) {
  }

  private final SessionView session;
  private final AgentLink link;
  private final SessionLoop loop;
  /** Tells the session's owner that the request in flight has ended. */
  private final Consumer<InFlight> ended;
  /** Tells the session's owner that it must close: its events cannot be stored. */
  private final Consumer<ConclaveException> failed;
  /** Looks for the agent's next request. */
  private final Runnable wake;
  private final Vertx vertx;
  private final LedgerWriter ledgerWriter;
  private final LedgerStore ledger;
  private final EventDetails details;
  private final Clock clock;
  private final SessionMetrics metrics;
  private final Terminations terminations;
  /** Starts at one slot and grows with a reply's events: an idle agent's writer holds an empty queue. */
  private final ArrayDeque<Pending> queue = new ArrayDeque<>(0);
  private boolean writing;
  /** A flush is queued behind the reads in progress. */
  private boolean flushQueued;

  EventWriter(SessionView session, AgentLink link, SessionLoop loop, Consumer<InFlight> ended, Consumer<ConclaveException> failed,
              Runnable wake, Vertx vertx, LedgerWriter ledgerWriter, LedgerStore ledger, EventDetails details, Clock clock,
              SessionMetrics metrics, Terminations terminations) {
    this.session = session;
    this.link = link;
    this.loop = loop;
    this.ended = ended;
    this.failed = failed;
    this.wake = wake;
    this.vertx = vertx;
    this.ledgerWriter = ledgerWriter;
    this.ledger = ledger;
    this.details = details;
    this.clock = clock;
    this.metrics = metrics;
    this.terminations = terminations;
  }

  /**
   * One of the agent's events: stored (in a batch) when it belongs to the request in flight, else
   * dropped and counted. Returns the error the session must close with, when the event is too large
   * to store (the request then ends like any other whose agent went away).
   */
  Optional<ConclaveException> accept(MessageResponse r) {
    InFlight flight = session.inFlight();
    String agentId = session.agentId();
    String id = r.getRequestId();
    if (flight == null || !flight.id().toString().equals(id)) {
      metrics.dropped(SessionMetrics.DropReason.UNKNOWN_REQUEST, agentId, id);
      return Optional.empty();
    }
    if (flight.terminalReceived()) {
      metrics.dropped(SessionMetrics.DropReason.FINISHED_REQUEST, agentId, id);
      return Optional.empty();
    }
    String name = session.registration().agent().name().isEmpty() ? agentId : session.registration().agent().name();
    Optional<LedgerEntry> entry = Entries.fromAgent(r, agentId, name, flight.id(), clock.instant(), flight.fullText());
    if (entry.isEmpty()) {
      metrics.dropped(SessionMetrics.DropReason.UNKNOWN_EVENT, agentId, id);
      return Optional.empty();
    }
    try {
      ledger.checkSize(entry.get());
    } catch (ConclaveException tooLarge) {
      return Optional.of(tooLarge);
    }
    if (entry.get().kind().terminal()) {
      flight.markTerminalReceived();
    }
    if (flight.discarded()) {
      metrics.dropped(SessionMetrics.DropReason.CANCELLED_REQUEST, agentId, id);
      endIfDiscardedAndFinished(flight);
      return Optional.empty();
    }
    if (r.getEventCase() == MessageResponse.EventCase.TEXT) {
      flight.appendText(r.getText());
    }
    queue(r, entry.get());
    return Optional.empty();
  }

  boolean idle() {
    return !writing && !flushQueued && queue.isEmpty();
  }

  private void queue(MessageResponse response, LedgerEntry entry) {
    queue.add(new Pending(response, entry));
    if (queue.size() >= PAUSE_AT) {
      link.pauseInbound();
    }
    if (!writing && !flushQueued) {
      // after the messages read together with this one: an agent's burst (chunks and done, sent
      // back to back) becomes one batch, one statement, instead of its first event alone and then the rest
      flushQueued = true;
      loop.later(() -> {
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
  private void endIfDiscardedAndFinished(InFlight flight) {
    if (idle() && flight != null && flight.discardedAndFinished()) {
      ended.accept(flight);
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
    List<LedgerEntry> entries = EventDetails.withAutoDecisions(flight, batch);
    if (entries.stream().anyMatch(e -> e.kind() == EventKind.TOOL_APPROVAL)) {
      flight.approvalAsked();
    }
    long expected = flight.persistedEvents();
    // the append, with the request's checks and bookkeeping in the same statement; published once committed
    LedgerWriter.Unit<Outcome> unit = tx -> tx.appending(flight.conversationKey(), entries,
        sql -> ledger.appendForRequest(sql, flight.conversationKey(), session.agentId(), entries, flight.id(), session.epoch(), expected,
          batch.size(), EventDetails.endState(batch)), LedgerStore.RequestAppend::firstSeq).compose(done -> {
      if (done.stored().isEmpty()) {
        return Future.succeededFuture(new Outcome(Result.DISCARDED, 0, entries));
      }
      if (done.firstSeq().isPresent()) {
        long firstSeq = done.firstSeq().get();
        return details.recordDetails(tx.sql(), session.agentId(), flight, entries, firstSeq)
          .compose(v -> details.expireApprovalsIfTerminal(tx.sql(), flight, batch))
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
    (EventDetails.needsDetails(flight, batch, entries) ? ledgerWriter.write(session.agentId(), unit) : ledgerWriter.writeStatement(session.agentId(), unit))
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
          failed.accept(storageUnavailable());
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
      link.resumeInbound();
    }
    if (terminal || flight.discardedAndFinished()) {
      ended.accept(flight);
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
    terminations.outOfStep(session.agentId(), flight.id(), session.epoch()).onComplete(ar -> loop.run(() -> {
      if (ar.failed()) {
        LOG.error("could not end a request whose events are out of step agent={} request={}", session.agentId(), flight.id(), ar.cause());
        failed.accept(storageUnavailable());
        return;
      }
      wake.run();
    }));
  }

  private void answerAutoApprovals(InFlight flight, List<LedgerEntry> entries) {
    for (LedgerEntry e : entries) {
      if (e.kind() == EventKind.TOOL_APPROVAL && flight.approveAll()) {
        String toolId = e.view().getToolApproval().getToolId();
        link.send(ServerMessage.newBuilder()
          .setToolApproval(ToolApprovalResponse.newBuilder().setId(toolId).setApproved(true).setApproveAll(true)).build());
      }
    }
  }

  private static ConclaveException storageUnavailable() {
    return new ConclaveException(dev.conclave.platform.errors.ErrorKind.UNAVAILABLE, "storage_unavailable",
      "the gateway could not store this agent's events; reconnect");
  }
}
