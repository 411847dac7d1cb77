package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.commit.WriteTx;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.RequestStore;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Ends requests on the gateway's initiative. Each ending is a conditional state change plus the
 * terminal ledger event in one transaction (the {@link LedgerWriter}'s), so however many actors
 * race, a request ends exactly once and its client sees exactly one terminal event. Live subscribers
 * are told after the commit.
 */
public final class Terminations {

  private static final Logger LOG = LoggerFactory.getLogger(Terminations.class);

  private final LedgerWriter writer;
  private final RequestStore requests;
  private final ApprovalStore approvals;
  private final AgentStore agents;
  private final Clock clock;

  public Terminations(LedgerWriter writer, RequestStore requests, ApprovalStore approvals, AgentStore agents, Clock clock) {
    this.writer = writer;
    this.requests = requests;
    this.approvals = approvals;
    this.agents = agents;
    this.clock = clock;
  }

  /** Ends, with a recoverable "agent disconnected" error, the agent's requests in flight on sessions up to {@code maxEpoch}. */
  public Future<Integer> disconnected(String agentId, long maxEpoch) {
    return writer.write(agentId, tx -> requests.endInFlightOfAgent(tx.sql(), agentId, maxEpoch).compose(ended -> errors(tx, ended)))
      .map(Terminations::logged);
  }

  /**
   * A session of the agent closed: its last-seen time is recorded and its requests in flight end as
   * {@link #disconnected}, in one write, so thousands of sessions closing at once share a few
   * transactions instead of queueing two statements each for the pool.
   */
  public Future<Integer> sessionClosed(String agentId, long epoch) {
    return writer.write(agentId, tx -> agents.touch(tx.sql(), agentId)
      .compose(v -> requests.endInFlightOfAgent(tx.sql(), agentId, epoch))
      .compose(ended -> errors(tx, ended)))
      .map(Terminations::logged);
  }

  /**
   * Ends, with a recoverable error, a request in flight whose stored events are out of step with
   * what its session wrote (only a fault elsewhere leads here): its client gets a terminal event,
   * and the agent's one in-flight slot is free for its next request.
   */
  public Future<Integer> outOfStep(String agentId, UUID requestId, long epoch) {
    return writer.write(agentId, tx -> requests.endInFlight(tx.sql(), requestId, epoch)
      .compose(ended -> errors(tx, ended, Entries.EVENTS_OUT_OF_STEP, true)))
      .map(ended -> logged(ended, Entries.EVENTS_OUT_OF_STEP));
  }

  /** Ends, with a recoverable error, every request in flight on a node that is gone. */
  public Future<Integer> nodeLost(String node) {
    return writer.write(node, tx -> requests.endInFlightOnNode(tx.sql(), node).compose(ended -> errors(tx, ended)))
      .map(Terminations::logged);
  }

  /**
   * Ends, with a recoverable error, requests in flight on this node whose session is gone (their
   * ending at close time failed, for example while the database was unreachable).
   */
  public Future<Integer> stranded(String node, List<String> agents, List<Long> epochs) {
    return writer.write(node, tx -> requests.endInFlightStrandedOn(tx.sql(), node, agents, epochs).compose(ended -> errors(tx, ended)))
      .map(Terminations::logged);
  }

  /** Ends, with a recoverable error, every request in flight on a node that is not up. */
  public Future<Integer> orphaned(List<String> liveNodes) {
    return writer.write("orphaned", tx -> requests.endInFlightNotOn(tx.sql(), liveNodes).compose(ended -> errors(tx, ended)))
      .map(Terminations::logged);
  }

  /**
   * Ends a queued or in-flight request as cancelled; returns the state it was in, or empty when it
   * had already ended (or never existed).
   */
  public Future<Optional<RequestState>> cancel(UUID requestId, String reason, UUID by) {
    return writer.write(requestId.toString(), tx -> requests.cancel(tx.sql(), requestId, reason).compose(previous -> {
      if (previous.isEmpty()) {
        return Future.succeededFuture(Optional.<RequestState>empty());
      }
      RequestStore.CancelledRequest r = previous.get();
      LedgerEntry entry = Entries.gatewayCancelled(requestId, reason, by, clock.instant());
      return approvals.expireOf(tx.sql(), requestId)
        .compose(v -> tx.append(r.conversationKey(), r.agentId(), List.of(entry)))
        .map(seq -> Optional.of(r.previous()));
    }));
  }

  /** Ends the queued requests of a retired agent with a (not recoverable) error; returns how many. */
  public Future<Integer> retired(String agentId) {
    return writer.write(agentId, tx -> requests.endQueuedOfAgent(tx.sql(), agentId)
      .compose(ended -> errors(tx, ended, Entries.RETIRED, false)))
      .map(ended -> logged(ended, Entries.RETIRED));
  }

  private Future<List<RequestStore.Ended>> errors(WriteTx tx, List<RequestStore.Ended> ended) {
    return errors(tx, ended, Entries.DISCONNECTED, true);
  }

  private Future<List<RequestStore.Ended>> errors(WriteTx tx, List<RequestStore.Ended> ended, String message, boolean recoverable) {
    Future<Void> chain = Future.succeededFuture();
    for (RequestStore.Ended e : ended) {
      LedgerEntry entry = Entries.gatewayError(e.id(), message, recoverable, clock.instant());
      chain = chain.compose(v -> approvals.expireOf(tx.sql(), e.id()))
        .compose(v -> tx.append(e.conversationKey(), e.agentId(), List.of(entry)).mapEmpty());
    }
    return chain.map(v -> ended);
  }

  /** After the commit: says what ended, and how many. */
  private static int logged(List<RequestStore.Ended> ended, String message) {
    ended.forEach(e -> LOG.info("request ended by the gateway: {} agent={} request={}", message, e.agentId(), e.id()));
    return ended.size();
  }

  private static int logged(List<RequestStore.Ended> ended) {
    return logged(ended, Entries.DISCONNECTED);
  }
}
