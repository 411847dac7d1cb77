package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
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

  /** How long a registration may hold its place; a turn takes milliseconds, seconds at worst in a storm. */
  static final Duration LONGEST_TURN = Duration.ofSeconds(30);

  private final int inFlight;
  private final Duration longestTurn;
  private final int queued;
  private final SessionMetrics metrics;
  private final ConcurrentLinkedQueue<Waiting<?>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();

  RegistrationGate(int inFlight, int queued, SessionMetrics metrics) {
    this(inFlight, queued, LONGEST_TURN, metrics);
  }

  RegistrationGate(int inFlight, int queued, Duration longestTurn, SessionMetrics metrics) {
    this.inFlight = inFlight;
    this.longestTurn = longestTurn;
    this.queued = queued;
    this.metrics = metrics;
    metrics.registrationsWaiting(waiting::get);
  }

  /**
   * Runs {@code registration} on {@code context} when its turn comes; its place is free again once
   * the future it returns completes. Refused at once when {@code queued} registrations already wait.
   * A turn that has not ended after the longest turn ({@link #LONGEST_TURN}) gives its place up (the
   * registration goes on): a registration stuck on something never takes the node's registrations
   * down with it.
   */
  <T> Future<T> admit(Context context, BooleanSupplier gone, Supplier<Future<T>> registration) {
    if (waiting.incrementAndGet() > queued) {
      waiting.decrementAndGet();
      metrics.registrationRefused();
      return Future.failedFuture(GatewayErrors.nodeBusy(queued));
    }
    Promise<T> result = Promise.promise();
    Waiting<T> turn = new Waiting<>(context, gone, registration, result, System.nanoTime());
    queue.add(turn);
    drain();
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
    AtomicBoolean held = new AtomicBoolean(true);
    long timer = turn.context.owner().setTimer(longestTurn.toMillis(), id -> {
      if (held.compareAndSet(true, false)) {
        metrics.registrationOverran(longestTurn);
        free();
      }
    });
    Future<T> done;
    try {
      done = turn.registration.get();
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(ar -> {
      turn.context.owner().cancelTimer(timer);
      if (held.compareAndSet(true, false)) {
        free();
      }
      turn.result.handle(ar);
    });
  }

  private void free() {
    running.decrementAndGet();
    drain();
  }

  private record Waiting<T>(Context context, BooleanSupplier gone, Supplier<Future<T>> registration, Promise<T> result, long since) {
  }
}
