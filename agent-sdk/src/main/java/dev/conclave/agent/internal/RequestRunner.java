package dev.conclave.agent.internal;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.Feature;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CancelRequest;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ToolApprovalResponse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Hands {@code SendMessage}s to the handler strictly one at a time. A message that arrives while
 * another is in flight waits in a small bounded queue. The next message starts only once the
 * previous handler call completed and its request ended. Confined to the client's context.
 */
final class RequestRunner {

  private static final Logger LOG = LoggerFactory.getLogger(RequestRunner.class);

  private record Queued(GatewayStream stream, SendMessage message) {
  }

  private final ClientContext context;
  private final ClientConfig config;
  private final AgentHandler handler;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private final List<Promise<Void>> idleWaiters = new ArrayList<>();
  private ActiveRequest current;
  /** Once set, new messages are answered {@code cancelled} with this reason instead of being run. */
  private String refusing;

  RequestRunner(ClientContext context, ClientConfig config) {
    this.context = context;
    this.config = config;
    this.handler = config.handler();
  }

  void onSendMessage(GatewayStream stream, SendMessage message) {
    String id = message.getRequestId();
    if (id.isEmpty()) {
      LOG.warn("ignoring a SendMessage without request id agent={} thread={}", config.agentId(), message.getThreadId());
      return;
    }
    if (refusing != null) {
      LOG.info("refusing a message: the agent is stopping agent={} request={}", config.agentId(), id);
      respond(stream, id, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(refusing)));
      return;
    }
    if (isKnown(id)) {
      LOG.warn("ignoring a repeated SendMessage agent={} request={}", config.agentId(), id);
      return;
    }
    if (current == null && queue.isEmpty()) {
      start(stream, message);
      return;
    }
    if (queue.size() >= config.maxQueuedMessages()) {
      LOG.warn("refusing a message: {} already wait behind request {} agent={} request={}",
        queue.size(), current == null ? "-" : current.requestId(), config.agentId(), id);
      respond(stream, id, MessageResponse.newBuilder().setError(
        "The agent is busy with earlier messages and cannot take more right now. Please try again shortly."));
      return;
    }
    queue.add(new Queued(stream, message));
    LOG.warn("gateway sent a message while another is in flight; queued agent={} request={} inFlight={} queued={}",
      config.agentId(), id, current == null ? "-" : current.requestId(), queue.size());
  }

  void onCancel(GatewayStream stream, CancelRequest cancel) {
    String id = cancel.getRequestId();
    String reason = cancel.hasReason() && !cancel.getReason().isEmpty() ? cancel.getReason() : "cancelled";
    if (!config.declares(Feature.CANCELLATION)) {
      LOG.warn("ignoring CancelRequest: this agent did not declare cancellation agent={} request={}", config.agentId(), id);
      return;
    }
    if (current != null && current.requestId().equals(id) && current.stream() == stream) {
      cancelCurrent(reason);
      return;
    }
    for (Iterator<Queued> it = queue.iterator(); it.hasNext(); ) {
      Queued q = it.next();
      if (q.message().getRequestId().equals(id)) {
        it.remove();
        LOG.info("cancelled a queued request before it started agent={} request={} reason={}", config.agentId(), id, reason);
        respond(q.stream(), id, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(reason)));
        return;
      }
    }
    LOG.info("ignoring CancelRequest for a request not in progress agent={} request={}", config.agentId(), id);
  }

  void onApproval(GatewayStream stream, ToolApprovalResponse response) {
    if (current == null || current.stream() != stream || !current.onApprovalResponse(response)) {
      LOG.info("ignoring ToolApprovalResponse with no pending approval agent={} tool={}", config.agentId(), response.getId());
    }
  }

  /** The stream ended: its request in progress is abandoned and its queued messages dropped. */
  void streamEnded(GatewayStream stream, String reason) {
    if (current != null && current.stream() == stream && !current.isEnded()) {
      ActiveRequest r = current;
      LOG.warn("request abandoned: its stream ended {} reason={}", r.logContext(), reason);
      boolean firstCancel = r.requestCancellation(reason);
      r.abandon(reason);
      if (firstCancel) {
        notifyCancel(r, reason);
      }
    }
    int dropped = 0;
    for (Iterator<Queued> it = queue.iterator(); it.hasNext(); ) {
      if (it.next().stream() == stream) {
        it.remove();
        dropped++;
      }
    }
    if (dropped > 0) {
      LOG.warn("dropped queued messages of an ended stream agent={} count={} reason={}", config.agentId(), dropped, reason);
    }
    checkIdle();
  }

  /**
   * Stops all work for good: cancels the request in progress, answers queued messages and any
   * that still arrive with {@code cancelled}. Completes when idle.
   */
  Future<Void> cancelAll(String reason) {
    refusing = reason;
    Queued q;
    while ((q = queue.poll()) != null) {
      respond(q.stream(), q.message().getRequestId(),
        MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(reason)));
    }
    if (current != null) {
      cancelCurrent(reason);
    }
    return whenIdle();
  }

  /** Completes once no request is in progress and none is queued. */
  Future<Void> whenIdle() {
    if (current == null && queue.isEmpty()) {
      return Future.succeededFuture();
    }
    Promise<Void> p = context.promise();
    idleWaiters.add(p);
    return p.future();
  }

  private void start(GatewayStream stream, SendMessage message) {
    IncomingMessage incoming = Protos.message(message);
    ActiveRequest request = new ActiveRequest(context, incoming, stream, config.agentId());
    current = request;
    LOG.info("request started {} thread={} sender={}", request.logContext(), incoming.threadId(), incoming.sender());
    Future<Void> handled = OnContext.callback(context, () -> CurrentTrace.around(incoming.traceContext(), () -> handler.handle(incoming, request)));
    handled.onComplete(ar -> {
      if (!request.isEnded()) {
        String cancelReason = request.cancellationReason();
        if (cancelReason != null) {
          // the handler gave up after being asked to stop: that is a cancellation, not a success
          request.cancelled(cancelReason);
        } else if (ar.succeeded()) {
          request.done(request.collectedText());
        } else {
          LOG.warn("handler failed {}", request.logContext(), ar.cause());
          request.error(Friendly.message(ar.cause()));
        }
      } else if (ar.failed()) {
        LOG.warn("handler failed after its request ended {}", request.logContext(), ar.cause());
      }
      if (current == request) {
        current = null;
      }
      next();
    });
  }

  private void next() {
    if (current == null) {
      Queued q;
      while ((q = queue.poll()) != null) {
        if (q.stream().isOpen()) {
          start(q.stream(), q.message());
          return;
        }
        LOG.warn("dropping a queued message of an ended stream agent={} request={}", config.agentId(), q.message().getRequestId());
      }
    }
    checkIdle();
  }

  private void cancelCurrent(String reason) {
    ActiveRequest r = current;
    if (r.isEnded() || r.cancellationReason() != null) {
      return;
    }
    LOG.info("cancelling {} reason={}", r.logContext(), reason);
    r.requestCancellation(reason);
    notifyCancel(r, reason);
  }

  /** Tells the handler; if it leaves the request open, ends it with {@code cancelled}. */
  private void notifyCancel(ActiveRequest r, String reason) {
    OnContext.callback(context, () -> handler.onCancel(r.requestId(), reason)).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("cancel hook failed {}", r.logContext(), ar.cause());
      }
      if (!r.isEnded()) {
        r.cancelled(reason);
      }
    });
  }

  private boolean isKnown(String requestId) {
    if (current != null && current.requestId().equals(requestId)) {
      return true;
    }
    return queue.stream().anyMatch(q -> q.message().getRequestId().equals(requestId));
  }

  private void checkIdle() {
    if (current == null && queue.isEmpty() && !idleWaiters.isEmpty()) {
      List<Promise<Void>> waiters = new ArrayList<>(idleWaiters);
      idleWaiters.clear();
      waiters.forEach(Promise::tryComplete);
    }
  }

  private void respond(GatewayStream stream, String requestId, MessageResponse.Builder event) {
    stream.write(AgentMessage.newBuilder().setResponse(event.setRequestId(requestId)).build())
      .onFailure(err -> LOG.warn("could not answer a queued message agent={} request={} error={}",
        config.agentId(), requestId, err.getMessage()));
  }
}
