package dev.conclave.swarm.events;

import dev.conclave.contract.Addresses;
import dev.conclave.swarm.store.EventStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Publishes swarm state changes on {@link Addresses#SWARM_EVENTS}. Requests a coordinator runs itself
 * bring their events back with their results ({@link #publish}). Every other change (background
 * jobs, task management, direct database calls) writes its events into the swarm.events outbox in
 * the same transaction as the change. Every coordinator node takes events from
 * the outbox (rows another node is taking are skipped, and taken rows are deleted), so each event is
 * published once, cluster-wide, in seq order per batch. A node looks when told that it changed
 * something ({@link #kick()}) and every poll interval for the rest. Delivery is at most once: a node
 * that dies between taking and publishing loses those events.
 */
public final class EventRelay {

  private static final Logger LOG = LoggerFactory.getLogger(EventRelay.class);
  private static final int BATCH = 500;

  private final Vertx vertx;
  private final EventStore store;
  private final Consumer<List<JsonObject>> published;
  private Context context;
  private long timer = -1;
  private boolean running;
  private boolean again;

  public EventRelay(Vertx vertx, EventStore store) {
    this(vertx, store, null);
  }

  /**
   * {@code published} (null: none) sees every event this node publishes, after it is sent: each event
   * is published by one node only, so this is where a change is seen once, cluster-wide (tracing
   * hooks in here).
   */
  public EventRelay(Vertx vertx, EventStore store, Consumer<List<JsonObject>> published) {
    this.vertx = vertx;
    this.store = store;
    this.published = published;
  }

  /** Starts polling; the relay then lives on {@code context}. */
  public void start(Context context, Duration poll) {
    this.context = context;
    this.timer = vertx.setPeriodic(poll.toMillis(), id -> run());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    context = null;
  }

  /** Publishes events a coordinator's own requests produced (captured, not in the outbox), in order. */
  public void publish(JsonArray events) {
    List<JsonObject> list = published == null ? null : new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      JsonObject event = events.getJsonObject(i);
      vertx.eventBus().publish(Addresses.SWARM_EVENTS, event);
      if (list != null) {
        list.add(event);
      }
    }
    observe(list);
  }

  private void observe(List<JsonObject> events) {
    if (published == null || events.isEmpty()) {
      return;
    }
    try {
      published.accept(events);
    } catch (RuntimeException e) {
      LOG.warn("swarm events: an observer failed error={}", e.toString());
    }
  }

  /** Something changed: publish soon. Callable from any thread; calls while a take runs coalesce. */
  public void kick() {
    Context target = context;
    if (target == null) {
      return;
    }
    if (Vertx.currentContext() == target) {
      run();
    } else {
      target.runOnContext(v -> run());
    }
  }

  private void run() {
    if (context == null) {
      return;
    }
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    Context own = context;
    store.take(BATCH).onComplete(ar -> own.runOnContext(v -> {
      running = false;
      if (ar.failed()) {
        LOG.warn("swarm events: taking from the outbox failed error={}", ar.cause().getMessage());
        return;
      }
      List<JsonObject> events = ar.result();
      events.forEach(event -> vertx.eventBus().publish(Addresses.SWARM_EVENTS, event));
      observe(events);
      if (again || events.size() == BATCH) {
        run();
      }
    }));
  }
}
