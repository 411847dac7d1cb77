package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.streaming.LiveEvents;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Ends requests on the gateway's initiative. Each ending is one transaction: a conditional state
 * change plus the terminal ledger event, so however many actors race, a request ends exactly once
 * and its client sees exactly one terminal event. Live subscribers are told after the commit.
 */
public final class Terminations {

  private static final Logger LOG = LoggerFactory.getLogger(Terminations.class);

  /** A terminal event that was committed and must be published. */
  private record Committed(String conversationKey, long seq, LedgerEntry entry) {
  }

  private record Cancelled(Optional<RequestState> previous, List<Committed> committed) {
  }

  private final Pool pool;
  private final RequestStore requests;
  private final LedgerStore ledger;
  private final ApprovalStore approvals;
  private final LiveEvents live;
  private final Clock clock;

  public Terminations(Pool pool, RequestStore requests, LedgerStore ledger, ApprovalStore approvals, LiveEvents live, Clock clock) {
    this.pool = pool;
    this.requests = requests;
    this.ledger = ledger;
    this.approvals = approvals;
    this.live = live;
    this.clock = clock;
  }

  /** Ends, with a recoverable "agent disconnected" error, the agent's requests in flight on sessions up to {@code maxEpoch}. */
  public Future<Integer> disconnected(String agentId, long maxEpoch) {
    return pool.withTransaction(tx -> requests.endInFlightOfAgent(tx, agentId, maxEpoch).compose(ended -> errors(tx, ended)))
      .map(this::publish);
  }

  /** Ends, with a recoverable error, every request in flight on a node that is gone. */
  public Future<Integer> nodeLost(String node) {
    return pool.withTransaction(tx -> requests.endInFlightOnNode(tx, node).compose(ended -> errors(tx, ended)))
      .map(this::publish);
  }

  /**
   * Ends, with a recoverable error, requests in flight on this node whose session is gone (their
   * ending at close time failed, for example while the database was unreachable).
   */
  public Future<Integer> stranded(String node, List<String> agents, List<Long> epochs) {
    return pool.withTransaction(tx -> requests.endInFlightStrandedOn(tx, node, agents, epochs).compose(ended -> errors(tx, ended)))
      .map(this::publish);
  }

  /** Ends, with a recoverable error, every request in flight on a node that is not up. */
  public Future<Integer> orphaned(List<String> liveNodes) {
    return pool.withTransaction(tx -> requests.endInFlightNotOn(tx, liveNodes).compose(ended -> errors(tx, ended)))
      .map(this::publish);
  }

  /**
   * Ends a queued or in-flight request as cancelled; returns the state it was in, or empty when it
   * had already ended (or never existed).
   */
  public Future<Optional<RequestState>> cancel(UUID requestId, String reason, UUID by) {
    return pool.withTransaction(tx -> requests.cancel(tx, requestId, reason).compose(previous -> {
      if (previous.isEmpty()) {
        return Future.succeededFuture(new Cancelled(Optional.empty(), List.of()));
      }
      RequestStore.CancelledRequest r = previous.get();
      LedgerEntry entry = Entries.gatewayCancelled(requestId, reason, by, clock.instant());
      return approvals.expireOf(tx, requestId)
        .compose(v -> ledger.append(tx, r.conversationKey(), r.agentId(), List.of(entry)))
        .map(seq -> new Cancelled(Optional.of(r.previous()), List.of(new Committed(r.conversationKey(), seq, entry))));
    })).map(result -> {
      publish(result.committed());
      return result.previous();
    });
  }

  /** Ends the queued requests of a retired agent with a (not recoverable) error; returns how many. */
  public Future<Integer> retired(String agentId) {
    return pool.withTransaction(tx -> requests.endQueuedOfAgent(tx, agentId)
        .compose(ended -> errors(tx, ended, Entries.RETIRED, false)))
      .map(this::publish);
  }

  private Future<List<Committed>> errors(SqlClient tx, List<RequestStore.Ended> ended) {
    return errors(tx, ended, Entries.DISCONNECTED, true);
  }

  private Future<List<Committed>> errors(SqlClient tx, List<RequestStore.Ended> ended, String message, boolean recoverable) {
    Future<List<Committed>> chain = Future.succeededFuture(new ArrayList<>());
    for (RequestStore.Ended e : ended) {
      LedgerEntry entry = Entries.gatewayError(e.id(), message, recoverable, clock.instant());
      chain = chain.compose(list -> approvals.expireOf(tx, e.id())
        .compose(v -> ledger.append(tx, e.conversationKey(), e.agentId(), List.of(entry)))
        .map(seq -> {
          list.add(new Committed(e.conversationKey(), seq, entry));
          LOG.info("request ended by the gateway: {} agent={} request={}", message, e.agentId(), e.id());
          return list;
        }));
    }
    return chain;
  }

  private int publish(List<Committed> committed) {
    for (Committed c : committed) {
      live.publish(c.conversationKey(), c.seq(), dev.conclave.gateway.ledger.LedgerViews.streamEvent(c.conversationKey(), c.seq(), c.entry()));
    }
    return committed.size();
  }
}
