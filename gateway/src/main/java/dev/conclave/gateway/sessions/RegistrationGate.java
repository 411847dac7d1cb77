package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Admission of agent registrations at this node's edge: at most {@code inFlight} run at once, the
 * rest wait in arrival order, up to {@code queued}; past that a registration is refused at once
 * ({@code node_busy}, UNAVAILABLE), so the agent tries another node instead of waiting here.
 *
 * <p>Why: when a node is lost, a third of the cluster's agents register on the survivors within
 * seconds. A registration is a handful of statements one after another; with all of them queueing for
 * the node's pool at once, each waited behind all the others, agents gave up on registrations still
 * running, tried again elsewhere, and the abandoned ones kept the pools busy. Here a queued
 * registration whose stream went away ({@code gone}) is dropped when its turn comes, before it costs a
 * statement, and live traffic keeps most of the pool.
 *
 * <p>Sessions live on many event loops, so the gate is thread-safe; each registration runs on its own
 * session's context.
 */
final class RegistrationGate {

  private final int inFlight;
  private final int queued;
  private final SessionMetrics metrics;
  private final ConcurrentLinkedQueue<Waiting<?>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();

  RegistrationGate(int inFlight, int queued, SessionMetrics metrics) {
    this.inFlight = inFlight;
    this.queued = queued;
    this.metrics = metrics;
    metrics.registrationsWaiting(waiting::get);
  }

  /**
   * Runs {@code registration} on {@code context} when its turn comes; its place is free again once
   * the future it returns completes. Refused at once when {@code queued} registrations already wait.
   * Called on {@code context}; when the registration cannot start at once, {@code mustWait} runs first,
   * there and then.
   */
  <T> Future<T> admit(Context context, BooleanSupplier gone, Runnable mustWait, Supplier<Future<T>> registration) {
    if (waiting.incrementAndGet() > queued) {
      waiting.decrementAndGet();
      metrics.registrationRefused();
      return Future.failedFuture(GatewayErrors.nodeBusy(queued));
    }
    Promise<T> result = Promise.promise();
    Waiting<T> turn = new Waiting<>(context, gone, registration, result, System.nanoTime());
    queue.add(turn);
    drain();
    if (!turn.taken) {
      mustWait.run();
    }
    return result.future();
  }

  /** Registrations waiting for their turn on this node. */
  int waiting() {
    return waiting.get();
  }

  private void drain() {
    while (true) {
      int now = running.get();
      if (now >= inFlight) {
        return;
      }
      if (!running.compareAndSet(now, now + 1)) {
        continue;
      }
      Waiting<?> next = queue.poll();
      if (next == null) {
        running.decrementAndGet();
        // one may have been queued after the poll, by a thread that saw every place taken
        if (queue.isEmpty()) {
          return;
        }
        continue;
      }
      waiting.decrementAndGet();
      next.taken = true;
      next.context.runOnContext(v -> start(next));
    }
  }

  private <T> void start(Waiting<T> turn) {
    metrics.registrationWaited(System.nanoTime() - turn.since);
    if (turn.gone.getAsBoolean()) {
      free();
      turn.result.fail(GatewayErrors.streamClosedWhileWaiting());
      return;
    }
    Future<T> done;
    try {
      done = turn.registration.get();
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(ar -> {
      free();
      turn.result.handle(ar);
    });
  }

  private void free() {
    running.decrementAndGet();
    drain();
  }

  private static final class Waiting<T> {
    final Context context;
    final BooleanSupplier gone;
    final Supplier<Future<T>> registration;
    final Promise<T> result;
    final long since;
    /** Its turn came (set by whichever thread gave it the place). */
    volatile boolean taken;

    Waiting(Context context, BooleanSupplier gone, Supplier<Future<T>> registration, Promise<T> result, long since) {
      this.context = context;
      this.gone = gone;
      this.registration = registration;
      this.result = result;
      this.since = since;
    }
  }
}
