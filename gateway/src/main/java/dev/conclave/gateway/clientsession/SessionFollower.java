package dev.conclave.gateway.clientsession;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Follows a conversation for a session: the ledger is read after the last event handed on, and a
 * live event only says that there is more to read. Each event is handed on exactly once and in order
 * (the next read starts after the last one handled), so a resume point gives no gap and no duplicate;
 * while the socket cannot take more, nothing is read.
 */
final class SessionFollower {

  private static final Logger LOG = LoggerFactory.getLogger(SessionFollower.class);
  static final int PAGE = 200;
  /** Also read on this timer: a lost wake-up (a partition, a node without the cluster bus) only delays events. */
  static final long POLL_MS = 1000;

  private final Vertx vertx;
  private final LedgerStore ledger;
  private final String conversationKey;
  private final Function<LedgerEvent, Future<Void>> sink;
  private final BooleanSupplier full;
  private final Consumer<Runnable> onDrain;
  private MessageConsumer<Buffer> consumer;
  private long last;
  private boolean reading;
  private boolean again;
  private boolean stopped;
  private boolean begun;
  private long timer = -1;

  SessionFollower(Vertx vertx, LedgerStore ledger, String conversationKey, Function<LedgerEvent, Future<Void>> sink, BooleanSupplier full,
                  Consumer<Runnable> onDrain) {
    this.vertx = vertx;
    this.ledger = ledger;
    this.conversationKey = conversationKey;
    this.sink = sink;
    this.full = full;
    this.onDrain = onDrain;
  }

  /**
   * Fixes the start point: after event {@code after} (the conversation's current end when empty);
   * answers it. Nothing is handed on before {@link #begin}, so the caller can answer first.
   */
  Future<Long> start(java.util.Optional<Long> after) {
    consumer = vertx.eventBus().consumer(Addresses.conversation(conversationKey), m -> read());
    return consumer.completion().compose(v -> ledger.lastSeq(conversationKey)).compose(end -> {
      long from = after.orElse(end);
      if (from > end) {
        stop();
        return Future.failedFuture(dev.conclave.gateway.GatewayErrors.badEventId(Long.toString(from)));
      }
      last = from;
      return Future.succeededFuture(from);
    });
  }

  /** Starts handing on events. */
  void begin() {
    if (begun || stopped) {
      return;
    }
    begun = true;
    timer = vertx.setPeriodic(POLL_MS, t -> read());
    read();
  }

  /** The last event handed on: where a follower of the same conversation continues without gap or duplicate. */
  long position() {
    return last;
  }

  private void read() {
    if (stopped || !begun) {
      return;
    }
    if (reading) {
      again = true;
      return;
    }
    if (full.getAsBoolean()) {
      onDrain.accept(this::read);
      return;
    }
    reading = true;
    again = false;
    ledger.after(conversationKey, last, PAGE).compose(this::handOn).onComplete(ar -> {
      reading = false;
      if (stopped) {
        return;
      }
      if (ar.failed()) {
        LOG.warn("session ledger read failed; retrying conversation={} error={}", conversationKey, ar.cause().getMessage());
        vertx.setTimer(500, t -> read());
      } else if (ar.result() == PAGE || again) {
        read();
      }
    });
  }

  /** Hands on the events in order, each after the one before it is handled; answers how many were read. */
  private Future<Integer> handOn(List<LedgerEvent> events) {
    Future<Void> chain = Future.succeededFuture();
    for (LedgerEvent e : events) {
      chain = chain.compose(v -> {
        if (stopped || e.seq() != last + 1) {
          return Future.succeededFuture();
        }
        return sink.apply(e).onSuccess(x -> last = e.seq());
      });
    }
    return chain.map(events.size());
  }

  void stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    if (consumer != null) {
      consumer.unregister();
    }
  }
}
