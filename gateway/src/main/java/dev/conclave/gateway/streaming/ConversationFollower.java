package dev.conclave.gateway.streaming;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.ledger.LedgerViews;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.streams.WriteStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * Follows one conversation for one {@code StreamEvents} call: replays the ledger after the resume
 * point, then switches to live events without a gap or a duplicate.
 *
 * <p>The subscriber only ever writes event {@code lastSent + 1}. Live events arrive out of band and
 * are held in a small, bounded, ordered buffer; when the buffer cannot supply the next event (a gap,
 * an overflow, or a reader slower than the conversation), the follower reads the ledger from
 * {@code lastSent} instead. A slow reader therefore costs a ledger read, never a lost event.
 */
public final class ConversationFollower {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationFollower.class);
  static final int PAGE = 200;
  static final int MAX_BUFFERED = 512;

  private final Vertx vertx;
  private final LedgerStore ledger;
  private final ApprovalStore approvals;
  private final QuestionStore questions;
  private final WriteStream<ClientStreamEvent> out;
  private final String conversationKey;
  private final Counter catchups;
  private final TreeMap<Long, ClientStreamEvent> buffered = new TreeMap<>();
  private MessageConsumer<Buffer> consumer;
  private io.vertx.core.Context context;
  private long lastSent;
  /** True while the ledger is being read (and before the start point is known): live events only buffer. */
  private boolean catchingUp = true;
  private boolean reading;
  private boolean stopped;

  public ConversationFollower(Vertx vertx, LedgerStore ledger, ApprovalStore approvals, QuestionStore questions,
                              WriteStream<ClientStreamEvent> out, String conversationKey, Counter catchups) {
    this.vertx = vertx;
    this.ledger = ledger;
    this.approvals = approvals;
    this.questions = questions;
    this.out = out;
    this.conversationKey = conversationKey;
    this.catchups = catchups;
  }

  /**
   * Starts following. With {@code since}, events after it are replayed; without, only events that
   * happen from now on are sent. Fails if {@code since} lies beyond the conversation's end.
   */
  public Future<Void> start(java.util.Optional<Long> since) {
    context = vertx.getOrCreateContext();
    consumer = subscribe();
    return consumer.completion()
      .compose(v -> ledger.lastSeq(conversationKey))
      .compose(last -> {
        long from = since.orElse(last);
        if (from > last) {
          stop();
          return Future.failedFuture(dev.conclave.gateway.GatewayErrors.badEventId(Long.toString(from)));
        }
        lastSent = from;
        return resendPendingApprovals(from).compose(v -> resendOpenQuestions(from));
      })
      .onSuccess(v -> catchUp())
      .onFailure(err -> stop());
  }

  /** Approvals still waiting that were asked before the resume point are sent again first. */
  private Future<Void> resendPendingApprovals(long from) {
    return approvals.pendingIn(conversationKey).map(pending -> {
      for (ApprovalStore.Pending p : pending) {
        if (p.ledgerSeq() <= from) {
          emit(ClientStreamEvent.newBuilder().setConversationKey(conversationKey)
            .setTimestamp(LedgerViews.iso(Instant.now())).setToolApproval(p.request()).build());
        }
      }
      return null;
    });
  }

  /** Questions still open that were asked before the resume point are sent again, so they can be answered. */
  private Future<Void> resendOpenQuestions(long from) {
    return questions.openIn(conversationKey).map(open -> {
      for (QuestionStore.Question q : open) {
        if (q.ledgerSeq() <= from) {
          emit(ClientStreamEvent.newBuilder().setConversationKey(conversationKey)
            .setTimestamp(LedgerViews.iso(Instant.now())).setUserQuestion(q.request()).build());
        }
      }
      return null;
    });
  }

  private MessageConsumer<Buffer> subscribe() {
    return vertx.eventBus().consumer(Addresses.conversation(conversationKey), msg -> onLive(LiveEvents.decode(msg.body())));
  }

  /**
   * Subscribes again, then reads the ledger after the last event sent. For after the cluster's
   * membership changed: a merge after a partition can leave this node's subscription out of the
   * cluster's subscription map, and then no live event arrives at all, so no gap ever shows that
   * events were missed. The old subscription goes once the new one is in place; an event that comes
   * through both is sent once (only event {@code lastSent + 1} is ever sent).
   */
  public void resubscribe() {
    if (context == null) {
      return;
    }
    context.runOnContext(v -> {
      if (stopped) {
        return;
      }
      MessageConsumer<Buffer> old = consumer;
      MessageConsumer<Buffer> fresh = subscribe();
      consumer = fresh;
      fresh.completion().onComplete(ar -> {
        if (ar.failed()) {
          // keep what there was: an old subscription may still work, none certainly does not
          LOG.warn("re-subscribing failed; keeping the old subscription conversation={} error={}", conversationKey,
            ar.cause().getMessage());
          fresh.unregister();
          if (consumer == fresh) {
            consumer = old;
          }
        } else {
          old.unregister();
        }
        if (stopped) {
          consumer.unregister();
          return;
        }
        catchUp();
      });
    });
  }

  private void onLive(LiveEvents.Live live) {
    if (stopped || live.seq() <= lastSent) {
      return;
    }
    if (buffered.size() >= MAX_BUFFERED) {
      // the reader is far behind: forget the buffer, the ledger has it all
      buffered.clear();
    }
    buffered.put(live.seq(), live.event());
    if (!catchingUp) {
      deliverBuffered();
    }
  }

  private void deliverBuffered() {
    while (!stopped) {
      buffered.headMap(lastSent, true).clear();
      if (buffered.isEmpty()) {
        return;
      }
      if (out.writeQueueFull()) {
        out.drainHandler(v -> deliverBuffered());
        return;
      }
      long next = buffered.firstKey();
      if (next != lastSent + 1) {
        // a gap: the missing events are committed (they precede one that is), so read them
        catchups.increment();
        catchUp();
        return;
      }
      if (!emit(buffered.pollFirstEntry().getValue())) {
        return;
      }
      lastSent = next;
    }
  }

  private void catchUp() {
    if (stopped || reading) {
      return;
    }
    catchingUp = true;
    if (out.writeQueueFull()) {
      out.drainHandler(v -> catchUp());
      return;
    }
    reading = true;
    long from = lastSent;
    ledger.after(conversationKey, from, PAGE).onComplete(ar -> {
      reading = false;
      if (stopped) {
        return;
      }
      if (ar.failed()) {
        LOG.warn("ledger read failed; retrying conversation={} error={}", conversationKey, ar.cause().getMessage());
        vertx.setTimer(500, t -> catchUp());
        return;
      }
      List<LedgerEvent> events = ar.result();
      for (LedgerEvent e : events) {
        if (e.seq() == lastSent + 1) {
          if (!emit(LedgerViews.streamEvent(e))) {
            return;
          }
          lastSent = e.seq();
        }
      }
      if (events.size() == PAGE) {
        catchUp();
        return;
      }
      buffered.headMap(lastSent, true).clear();
      if (events.isEmpty() && !buffered.isEmpty() && buffered.firstKey() > lastSent + 1) {
        // the event before the buffered ones is not readable yet; look again shortly
        vertx.setTimer(100, t -> catchUp());
        return;
      }
      catchingUp = false;
      deliverBuffered();
    });
  }

  /** Writes one event; false (and stopped) when the client's stream is gone. */
  private boolean emit(ClientStreamEvent event) {
    try {
      out.write(event);
      return true;
    } catch (IllegalStateException streamGone) {
      stop();
      return false;
    }
  }

  public void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    buffered.clear();
    if (consumer != null) {
      consumer.unregister();
    }
  }

  public long lastSent() {
    return lastSent;
  }
}
