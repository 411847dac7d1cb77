package dev.conclave.platform.access;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The access behind this node's open followers (StreamEvents, bridge subscriptions, session
 * sockets), so that a change of grants, bindings, roles or ownership reaches what is already open,
 * as {@code LiveCredentials} does for revoked credentials. A follower registers its caller and what
 * it follows ({@link AccessTarget}); whatever changes access announces it ({@link #announce}), naming
 * the principals and conversations it touches; every node re-checks the followers the change touches
 * with the one rule, in one statement per {@value AccessRecheck#BATCH} of them ({@link AgentAccess#check}),
 * and tells each one that lost access, on its own context, which ends it. On the announcing node that
 * is done before the announcement completes, so a change's answer comes after its followers ended;
 * the others hear it on the event bus ({@link Addresses#ACCESS_CHANGED}) at once. Every
 * {@link #RECHECK} each node re-checks all its followers, for an announcement that was lost and for a
 * change made with SQL by hand.
 */
public final class LiveAccess {

  private static final Logger LOG = LoggerFactory.getLogger(LiveAccess.class);
  /** How often every open follower is re-checked, whatever was announced. */
  public static final Duration RECHECK = Duration.ofSeconds(10);
  /** How long an announcement waits for this node's followers that lost access to be ended. */
  static final Duration ENDING_PATIENCE = Duration.ofSeconds(5);

  /**
   * One follower's registration. {@link #retarget} when it starts following something else;
   * {@link #close} when it ends for any other reason.
   */
  public final class Watch {
    final Caller caller;
    final Consumer<ConclaveException> onLost;
    final Context context;
    volatile AccessTarget target;
    private final AtomicBoolean over = new AtomicBoolean();

    private Watch(Caller caller, AccessTarget target, Consumer<ConclaveException> onLost, Context context) {
      this.caller = caller;
      this.target = target;
      this.onLost = onLost;
      this.context = context;
    }

    /**
     * Follows {@code target} from now on. {@code mark} is {@link #mark()} taken before the check that
     * allowed it: a change heard since then is checked against it at once.
     */
    public void retarget(AccessTarget next, long mark) {
      synchronized (this) {
        if (over.get()) {
          return;
        }
        unindex(this);
        target = next;
        index(this);
      }
      checkSince(this, mark);
    }

    /** {@link LiveAccess#mark()}, for a follower that only holds its watch. */
    public long mark() {
      return changes.get();
    }

    /** The follower ended: it is no longer re-checked. */
    public void close() {
      end();
    }

    /** True the first time: the follower is over (ended by its holder, or for lost access). */
    synchronized boolean end() {
      if (over.compareAndSet(false, true)) {
        unindex(this);
        return true;
      }
      return false;
    }

    boolean ended() {
      return over.get();
    }
  }

  private final Vertx vertx;
  private final AccessRecheck recheck;
  private final String id = UUID.randomUUID().toString();
  private final Map<UUID, Set<Watch>> byPrincipal = new ConcurrentHashMap<>();
  private final Map<String, Set<Watch>> byConversation = new ConcurrentHashMap<>();
  private final AtomicLong changes = new AtomicLong();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private final Counter ended;

  public LiveAccess(Vertx vertx, AgentAccess rule, MeterRegistry metrics) {
    this.vertx = vertx;
    this.recheck = new AccessRecheck(rule, metrics.counter(MetricNames.ACCESS_RECHECKS_FAILED));
    this.ended = metrics.counter(MetricNames.ACCESS_FOLLOWERS_ENDED);
  }

  /** Listens for other nodes' announcements and re-checks every follower periodically. */
  public Future<Void> start() {
    var consumer = vertx.eventBus().<Object>consumer(Addresses.ACCESS_CHANGED, msg -> {
      if (!(msg.body() instanceof JsonObject body)) {
        changed(AccessChange.all());
      } else if (!id.equals(body.getString("origin"))) {
        changed(AccessChange.fromJson(body));
      }
    });
    vertx.setPeriodic(RECHECK.toMillis(), t -> {
      // one sweep at a time: a slow database must not pile them up
      if (sweeping.compareAndSet(false, true)) {
        check(watches()).onComplete(ar -> sweeping.set(false));
      }
    });
    return consumer.completion();
  }

  /**
   * A count of the changes this node has heard of. A follower takes it before it checks access and
   * hands it to {@link #watch}: a change that came in between is then checked at once.
   */
  public long mark() {
    return changes.get();
  }

  /**
   * Re-checks {@code caller}'s access to {@code target} whenever access changes, for as long as the
   * follower is open; calls {@code onLost} (once, on the caller's context, with an
   * {@code access_revoked} failure naming what was lost) when it is gone.
   */
  public Watch watch(Caller caller, AccessTarget target, long mark, Consumer<ConclaveException> onLost) {
    Context context = Vertx.currentContext() != null ? Vertx.currentContext() : vertx.getOrCreateContext();
    Watch w = new Watch(caller, target, onLost, context);
    index(w);
    checkSince(w, mark);
    return w;
  }

  /**
   * A change made on this node, after it committed: this node's followers it touches are re-checked,
   * and those that lost access ended, before the future completes (it never fails: a re-check that
   * failed is logged and left to the periodic one); every other node hears of it at once.
   */
  public Future<Void> announce(AccessChange change) {
    vertx.eventBus().publish(Addresses.ACCESS_CHANGED, change.toJson(id));
    // the caller goes on on its own context, whichever thread ended the last follower
    Context caller = Vertx.currentContext() != null ? Vertx.currentContext() : vertx.getOrCreateContext();
    Promise<Void> done = Promise.promise();
    long timer = vertx.setTimer(ENDING_PATIENCE.toMillis(), t -> caller.runOnContext(v -> {
      if (done.tryComplete()) {
        LOG.warn("access: followers that lost access were not all ended within {} s change={}", ENDING_PATIENCE.toSeconds(), change);
      }
    }));
    changed(change).onComplete(ar -> {
      vertx.cancelTimer(timer);
      caller.runOnContext(v -> done.tryComplete());
    });
    return done.future();
  }

  private Future<Void> changed(AccessChange change) {
    changes.incrementAndGet();
    Set<Watch> touched = new HashSet<>();
    if (change.everything()) {
      touched.addAll(watches());
    } else {
      change.principals().forEach(p -> touched.addAll(byPrincipal.getOrDefault(p, Set.of())));
      change.conversations().forEach(c -> touched.addAll(byConversation.getOrDefault(c, Set.of())));
    }
    return check(touched);
  }

  private void checkSince(Watch w, long mark) {
    if (changes.get() != mark) {
      check(List.of(w));
    }
  }

  private Future<Void> check(java.util.Collection<Watch> watches) {
    return recheck.run(watches, this::lose);
  }

  /** Ends one follower that lost access: on its context; completes once it was told. */
  private Future<Void> lose(Watch w, ConclaveException why) {
    if (!w.end()) {
      return Future.succeededFuture();
    }
    ended.increment();
    LOG.info("access: follower ended principal={} target={} reason={}", w.caller.principalId(), w.target.name(), why.detail());
    Promise<Void> told = Promise.promise();
    w.context.runOnContext(v -> {
      try {
        w.onLost.accept(why);
      } finally {
        told.tryComplete();
      }
    });
    return told.future();
  }

  private List<Watch> watches() {
    Set<Watch> all = new HashSet<>();
    byPrincipal.values().forEach(all::addAll);
    return new ArrayList<>(all);
  }

  private void index(Watch w) {
    byPrincipal.computeIfAbsent(w.caller.principalId(), k -> ConcurrentHashMap.newKeySet()).add(w);
    w.target.conversationKey().ifPresent(c -> byConversation.computeIfAbsent(c, k -> ConcurrentHashMap.newKeySet()).add(w));
  }

  private void unindex(Watch w) {
    remove(byPrincipal, w.caller.principalId(), w);
    w.target.conversationKey().ifPresent(c -> remove(byConversation, c, w));
  }

  private static <K> void remove(Map<K, Set<Watch>> map, K key, Watch w) {
    map.computeIfPresent(key, (k, set) -> {
      set.remove(w);
      return set.isEmpty() ? null : set;
    });
  }
}
