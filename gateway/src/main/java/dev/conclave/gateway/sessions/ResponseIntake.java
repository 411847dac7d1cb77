package dev.conclave.gateway.sessions;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.MessageResponse;

import java.time.Clock;
import java.util.Optional;

/**
 * Checks each MessageResponse against the request in flight and hands the accepted ones to the
 * writer. Events for unknown or finished requests, for another agent's request, or of an unknown
 * kind are dropped and counted; events of a request the gateway already ended are discarded until
 * the agent's own terminal event frees the session for the next request.
 */
final class ResponseIntake {

  private final AgentSession session;
  private final EventWriter writer;
  private final LedgerStore ledger;
  private final Clock clock;
  private final SessionMetrics metrics;

  ResponseIntake(AgentSession session, EventWriter writer, LedgerStore ledger, Clock clock, SessionMetrics metrics) {
    this.session = session;
    this.writer = writer;
    this.ledger = ledger;
    this.clock = clock;
    this.metrics = metrics;
  }

  void accept(MessageResponse r) {
    InFlight flight = session.inFlight();
    String agentId = session.agentId();
    String id = r.getRequestId();
    if (flight == null || !flight.id().toString().equals(id)) {
      metrics.dropped(SessionMetrics.DropReason.UNKNOWN_REQUEST, agentId, id);
      return;
    }
    if (flight.terminalReceived()) {
      metrics.dropped(SessionMetrics.DropReason.FINISHED_REQUEST, agentId, id);
      return;
    }
    String name = session.registration().agent().name().isEmpty() ? agentId : session.registration().agent().name();
    Optional<LedgerEntry> entry = Entries.fromAgent(r, agentId, name, flight.id(), clock.instant(), flight.fullText());
    if (entry.isEmpty()) {
      metrics.dropped(SessionMetrics.DropReason.UNKNOWN_EVENT, agentId, id);
      return;
    }
    try {
      ledger.checkSize(entry.get());
    } catch (ConclaveException tooLarge) {
      // the agent ends up disconnected; its request ends like any other whose agent went away
      session.fail(tooLarge);
      return;
    }
    if (entry.get().kind().terminal()) {
      flight.markTerminalReceived();
    }
    if (flight.discarded()) {
      metrics.dropped(SessionMetrics.DropReason.CANCELLED_REQUEST, agentId, id);
      writer.endIfDiscardedAndFinished(flight);
      return;
    }
    if (r.getEventCase() == MessageResponse.EventCase.TEXT) {
      flight.appendText(r.getText());
    }
    writer.accept(r, entry.get());
  }
}
