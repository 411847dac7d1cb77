package dev.conclave.gateway.control;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.UUID;

/**
 * Cancels requests. A queued request ends at once. An in-flight request of an agent that declared
 * {@code cancellation} gets a CancelRequest and the agent's own {@code cancelled} ends it (or the
 * gateway does, after the cancel grace). For any other agent the gateway ends it at once and drops
 * the agent's further events for it.
 */
public final class Cancellation {

  private static final Logger LOG = LoggerFactory.getLogger(Cancellation.class);

  /** What a cancel did. {@code pending}: the agent was asked and will end the request itself. */
  public record Outcome(UUID requestId, String state, boolean pending) {
  }

  private final RequestStore requests;
  private final Terminations terminations;
  private final AgentRouter router;

  public Cancellation(RequestStore requests, Terminations terminations, AgentRouter router) {
    this.requests = requests;
    this.terminations = terminations;
    this.router = router;
  }

  /** Cancels {@code r}; the caller was found allowed to act on it. */
  public Future<Outcome> cancel(Caller caller, RequestRecord r, String reason) {
    UUID requestId = r.id();
    if (r.state().ended()) {
      return Future.failedFuture(GatewayErrors.requestFinished(requestId.toString(), r.state().id()));
    }
    if (r.state() == RequestState.QUEUED) {
      return endAtGateway(r, reason, caller);
    }
    return router.owner(r.agentId()).compose(owner -> {
      Optional<PresenceEntry> session = owner.filter(o -> r.dispatchEpoch().isPresent() && o.epoch() == r.dispatchEpoch().get());
      if (session.isPresent() && session.get().declared("cancellation")) {
        return requests.markCancelRequested(requestId, reason)
          .compose(v -> router.send(session.get(), NodeCommand.cancel(r.agentId(), session.get().epoch(), requestId, reason)))
          .map(reply -> new Outcome(requestId, "cancelling", true))
          .recover(err -> {
            LOG.warn("cancel could not reach the agent; the gateway ends the request agent={} request={} error={}",
              r.agentId(), requestId, err.getMessage());
            return endAtGateway(r, reason, caller);
          });
      }
      return endAtGateway(r, reason, caller).onSuccess(outcome -> session.ifPresent(s ->
        router.send(s, NodeCommand.discard(r.agentId(), s.epoch(), requestId))
          .onFailure(err -> LOG.debug("discard not delivered agent={} request={}", r.agentId(), requestId))));
    });
  }

  private Future<Outcome> endAtGateway(RequestRecord r, String reason, Caller caller) {
    return terminations.cancel(r.id(), reason, caller.principalId()).compose(previous -> previous.isPresent()
      ? Future.succeededFuture(new Outcome(r.id(), "cancelled", false))
      : requests.find(r.id()).compose(now -> Future.failedFuture(
        GatewayErrors.requestFinished(r.id().toString(), now.map(x -> x.state().id()).orElse("unknown")))));
  }
}
