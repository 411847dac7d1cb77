package dev.conclave.agent.internal;

import dev.conclave.agent.ConnectionLostException;
import dev.conclave.agent.WriteQueueOverflowException;
import dev.conclave.proto.coven.AgentMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.grpc.client.GrpcClientRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * The agent's half of one stream, with backpressure. A message is written at once while the
 * transport accepts more; otherwise it waits, in order, in a bounded queue until the transport
 * drains, and its future completes only then. Confined to the client's context.
 */
final class Outbound {

  private static final Logger LOG = LoggerFactory.getLogger(Outbound.class);

  private record Waiting(AgentMessage message, Promise<Void> accepted) {
  }

  private final GrpcClientRequest<AgentMessage, ?> request;
  private final int capacity;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private final String logContext;
  /** Set once new writes are refused: the stream is ending or gone. */
  private Supplier<Throwable> refusal;
  /** Set when the transport is gone: nothing waiting will ever go out. */
  private boolean dead;
  /** Set by {@link #end()}: half-close once the waiting messages are out. */
  private Promise<Void> ending;

  Outbound(GrpcClientRequest<AgentMessage, ?> request, int capacity, String logContext) {
    this.request = request;
    this.capacity = capacity;
    this.logContext = logContext;
    request.drainHandler(v -> drain());
  }

  /** Writes {@code message}; the future completes when the transport accepted it. */
  Future<Void> write(AgentMessage message) {
    if (refusal != null) {
      return Future.failedFuture(refusal.get());
    }
    if (waiting.isEmpty() && !transportFull()) {
      return send(message) ? Future.succeededFuture() : Future.failedFuture(streamGone());
    }
    if (waiting.size() >= capacity) {
      return Future.failedFuture(new WriteQueueOverflowException(capacity));
    }
    Promise<Void> accepted = Promise.promise();
    waiting.add(new Waiting(message, accepted));
    if (waiting.size() == 1) {
      LOG.debug("gateway reads slower than the agent writes; holding events {}", logContext);
    }
    return accepted.future();
  }

  /** Writes {@code message} only if nothing is waiting; for traffic that may be skipped, like heartbeats. */
  boolean writeIfIdle(AgentMessage message) {
    if (refusal != null || !waiting.isEmpty() || transportFull()) {
      return false;
    }
    return send(message);
  }

  /**
   * Refuses new writes, lets the waiting ones go out, then half-closes the stream. Completes once
   * the half-close was sent (or the transport died first).
   */
  Future<Void> end() {
    if (ending != null) {
      return ending.future();
    }
    ending = Promise.promise();
    if (refusal == null) {
      refusal = () -> new ConnectionLostException("the stream to the gateway is closing", null);
    }
    endIfDrained();
    return ending.future();
  }

  /** The transport is gone: refuses further writes and fails the waiting ones with the cause. */
  void close(Supplier<Throwable> cause) {
    if (dead) {
      return;
    }
    dead = true;
    refusal = cause;
    Waiting w;
    while ((w = waiting.poll()) != null) {
      w.accepted().fail(cause.get());
    }
    if (ending != null) {
      ending.tryComplete();
    }
  }

  private void drain() {
    while (!dead && !waiting.isEmpty() && !transportFull()) {
      Waiting w = waiting.poll();
      if (send(w.message())) {
        w.accepted().complete();
      } else {
        w.accepted().fail(streamGone());
      }
    }
    endIfDrained();
  }

  private void endIfDrained() {
    if (ending == null || dead || !waiting.isEmpty()) {
      return;
    }
    try {
      request.end();
    } catch (IllegalStateException alreadyEnded) {
      // ended or failed meanwhile; the stream's end handler reports how
    }
    ending.tryComplete();
  }

  private boolean transportFull() {
    try {
      return request.writeQueueFull();
    } catch (IllegalStateException ended) {
      // the request is complete: nothing can be written any more
      return true;
    }
  }

  /** Hands {@code message} to the transport; false when the stream is already failed or ended. */
  private boolean send(AgentMessage message) {
    try {
      request.write(message).onFailure(err ->
        LOG.debug("write to gateway failed {} error={}", logContext, err.toString()));
      return true;
    } catch (IllegalStateException gone) {
      // the stream failed or ended and its end handler has not run yet; it reports the loss
      LOG.debug("write to a closed gateway stream refused {} error={}", logContext, gone.getMessage());
      return false;
    }
  }

  private Throwable streamGone() {
    return refusal != null ? refusal.get() : new ConnectionLostException("the gateway stream is closed", null);
  }
}
