package dev.conclave.gateway.sessions;

import dev.conclave.contract.SendMessageTraces;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.proto.coven.FileAttachment;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.gateway.mailbox.Attachments;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.platform.tracing.TraceContexts;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Hands the agent its next queued request when it has none in flight. Woken when work is queued;
 * also polls on a slow timer, so a lost wake-up only delays work, never strands it.
 *
 * <p>When a request ends, the queue is asked again only if work may be waiting: the dispatch said
 * more requests were queued behind the one it took, or a wake came while the agent was busy. A
 * request ending with nothing queued behind it costs no query. The slow timer still covers a wake
 * that never arrived.
 *
 * <p>A client's message for an idle agent on this node does not wake it: {@link #acceptAndDispatch}
 * writes the message and dispatches it in one statement, so the request reaches the agent after one
 * commit instead of two.
 */
final class Dispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

  private final SessionView session;
  private final AgentLink link;
  /** Tells the session's owner which request the agent now has. */
  private final Consumer<InFlight> dispatched;
  /** Tells the session's owner that a draining session has nothing left to hand over. */
  private final Runnable drained;
  private final Vertx vertx;
  private final RequestStore requests;
  private final LedgerWriter writer;
  private final AgentRouter router;
  private final String nodeId;
  private final Duration idleRedispatch;
  private final SessionMetrics metrics;
  private boolean polling;
  private boolean pollAgain;
  /** Work may be queued that the agent could not take while busy: look again when it is free. */
  private boolean workWaiting;
  private boolean stopped;
  /** The last dispatch failed: it may have committed all the same (its connection was lost while committing). */
  private boolean unsure;
  /** The request last sent to the agent, never to be sent twice. */
  private java.util.UUID lastSent;
  private long timer = -1;
  private io.vertx.core.Promise<Void> idle;

  Dispatcher(SessionView session, AgentLink link, Consumer<InFlight> dispatched, Runnable drained, Vertx vertx, RequestStore requests,
             LedgerWriter writer, AgentRouter router, String nodeId, Duration idleRedispatch, SessionMetrics metrics) {
    this.session = session;
    this.link = link;
    this.dispatched = dispatched;
    this.drained = drained;
    this.vertx = vertx;
    this.requests = requests;
    this.writer = writer;
    this.router = router;
    this.nodeId = nodeId;
    this.idleRedispatch = idleRedispatch;
    this.metrics = metrics;
  }

  /** Work was queued for the agent. */
  void wake() {
    if (session.inFlight() != null) {
      workWaiting = true;
      return;
    }
    poll();
  }

  /** The agent's request ended: its next one, if any was queued meanwhile. */
  void requestEnded() {
    if (workWaiting || unsure) {
      workWaiting = false;
      poll();
    } else {
      schedule(idleRedispatch.toMillis());
    }
  }

  /** Whether the agent may be handed a request now: its session is live and has none in flight. */
  private boolean mayDispatch() {
    return !stopped && session.registered() && !session.draining() && session.inFlight() == null;
  }

  void poll() {
    if (!mayDispatch()) {
      return;
    }
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    pollAgain = false;
    String agentId = session.agentId();
    long epoch = session.epoch();
    Future<Optional<RequestStore.Dispatched>> next = unsure
      ? requests.dispatchedTo(agentId, epoch, nodeId).compose(found -> {
          unsure = false;
          if (found.isPresent() && !found.get().id().equals(lastSent)) {
            LOG.warn("dispatch: the last dispatch failed but had committed (its connection was lost); sending it now agent={} request={}",
              agentId, found.get().id());
            // (whether more are queued is not known here: look when it ends)
            return Future.succeededFuture(found.map(r -> new RequestStore.Dispatched(r, true)));
          }
          return dispatchNext(agentId, epoch);
        })
      : dispatchNext(agentId, epoch);
    next.onComplete(this::settle);
  }

  /**
   * Runs a client's message's statement for this agent (the mailbox's, through the ledger writer); when
   * the agent is idle, with this session as its dispatch target, so it also hands the request to this
   * session if nothing was queued before it, as {@link #poll} would have once woken. Completes once
   * committed; a dispatch that lost a race to another session leaves the message queued.
   */
  Future<Mailbox.Enqueued> acceptAndDispatch(Function<Optional<Mailbox.DispatchTo>, Future<Mailbox.Enqueued>> statement) {
    if (unsure || polling || !mayDispatch()) {
      return statement.apply(Optional.empty());
    }
    polling = true;
    pollAgain = false;
    Optional<Mailbox.DispatchTo> here = Optional.of(new Mailbox.DispatchTo(session.epoch(), nodeId));
    Promise<Mailbox.Enqueued> written = Promise.promise();
    statement.apply(here)
      .recover(err -> RequestStore.lostDispatchRace(err)
        ? statement.apply(Optional.empty())
        : Future.failedFuture(err))
      .onComplete(ar -> {
        // a message refused before anything was sent (too large, say) leaves no dispatch to be unsure of
        settle(ar.failed() && ar.cause() instanceof ConclaveException
          ? Future.succeededFuture(Optional.empty())
          : ar.map(e -> e.dispatched().map(r -> new RequestStore.Dispatched(r, false))));
        written.handle(ar);
      });
    return written.future();
  }

  /** What a dispatch query found: sends it to the agent, or waits. */
  private void settle(AsyncResult<Optional<RequestStore.Dispatched>> ar) {
    polling = false;
    if (stopped || session.draining()) {
      // the session went away (or is handing over) while the query ran: the request was never
      // sent, so it goes back to the queue for the agent's next session
      Future<Void> undo = ar.succeeded() && ar.result().isPresent()
        ? requests.requeue(ar.result().get().request().id(), session.epoch()).onSuccess(back -> {
            if (back) {
              router.wake(session.agentId());
            }
          }).mapEmpty()
        : Future.succeededFuture();
      undo.onComplete(v -> becameIdle());
      return;
    }
    if (ar.failed()) {
      LOG.warn("dispatch failed; retrying agent={} error={}", session.agentId(), ar.cause().getMessage());
      unsure = true;
      schedule(1000);
      return;
    }
    if (ar.result().isEmpty()) {
      schedule(idleRedispatch.toMillis());
      if (pollAgain) {
        poll();
      }
      return;
    }
    // more queued behind it, or a wake came while this query ran (what it announced may be queued)
    workWaiting = ar.result().get().moreQueued() || pollAgain;
    InFlight flight = new InFlight(ar.result().get().request());
    lastSent = flight.id();
    dispatched.accept(flight);
    metrics.dispatched();
    SendMessage.Builder msg = SendMessage.newBuilder()
      .setRequestId(flight.id().toString())
      .setThreadId(flight.conversationKey())
      .setSender(flight.request().sender())
      .setContent(flight.request().content());
    for (FileAttachment a : Attachments.decode(flight.request().attachments())) {
      msg.addAttachments(a);
    }
    LOG.debug("request dispatched agent={} request={}", session.agentId(), flight.id());
    // the client's trace, stored with the request, goes on here, on whichever node and whenever
    Span span = RequestSpans.start(vertx, RequestSpans.REQUEST, SpanKind.CONSUMER, flight.request().traceContext(),
      Map.of(RequestSpans.REQUEST_ID, flight.id().toString(), RequestSpans.AGENT_ID, session.agentId(), RequestSpans.NODE_ID, nodeId));
    flight.traced(span);
    // the agent's own calls (a model API, a CLI) join the trace: its context rides in the message,
    // in a field Coven agents that do not know it skip (conclave_trace.proto)
    SendMessageTraces.attach(msg, TraceContexts.of(span));
    try (Scope ignored = span.makeCurrent()) {
      link.send(ServerMessage.newBuilder().setSendMessage(msg).build());
    }
  }

  /** Through the ledger writer: the dispatch commits together with the other writes queued there. */
  private Future<Optional<RequestStore.Dispatched>> dispatchNext(String agentId, long epoch) {
    return writer.writeStatement(agentId, tx -> requests.dispatchNext(tx.sql(), agentId, epoch, nodeId))
      .recover(err -> RequestStore.lostDispatchRace(err) ? Future.succeededFuture(Optional.empty()) : Future.failedFuture(err));
  }

  private void schedule(long delayMs) {
    vertx.cancelTimer(timer);
    timer = vertx.setTimer(delayMs, t -> poll());
  }

  /** Stops dispatching; completes once no dispatch query is in flight any more. */
  Future<Void> stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    if (!polling) {
      return Future.succeededFuture();
    }
    if (idle == null) {
      idle = io.vertx.core.Promise.promise();
    }
    return idle.future();
  }

  boolean polling() {
    return polling;
  }

  private void becameIdle() {
    if (idle != null) {
      idle.tryComplete();
    }
    if (!stopped && session.draining() && session.inFlight() == null) {
      drained.run();
    }
  }
}
