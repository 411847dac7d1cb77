package dev.conclave.swarm.protocol;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.store.ProtocolStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Sends the protocol requests of one event loop to PostgreSQL in batches. While {@code maxInFlight}
 * statements run, arriving requests queue; each finished statement takes up to {@code maxBatch} of
 * them in one swarm.dispatch_batch call. An idle coordinator therefore adds no delay, and a busy one
 * turns many round trips and commits into one. Each request keeps its own result; if a batch fails
 * as a whole (a database error in one request), its requests are retried one by one. The events a
 * batch produced come back with its results and go to the event sink. The queue is
 * bounded: beyond {@code maxQueued} waiting requests, new ones fail fast with {@code overloaded}.
 * Confined to the context it was created on.
 */
public final class DispatchBatcher {

  private static final Logger LOG = LoggerFactory.getLogger(DispatchBatcher.class);

  private record Pending(JsonObject item, Promise<ProtocolStore.Result> promise) {
  }

  private final Context context;
  private final ProtocolStore store;
  private final Clock clock;
  private final int maxBatch;
  private final int maxInFlight;
  private final int maxQueued;
  private final SwarmMetrics metrics;
  private final Consumer<JsonArray> events;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int inFlight;

  /** @param events takes the events of each successful batch, to publish them */
  public DispatchBatcher(Context context, ProtocolStore store, Clock clock, int maxBatch, int maxInFlight, int maxQueued,
                         SwarmMetrics metrics, Consumer<JsonArray> events) {
    this.context = context;
    this.metrics = metrics;
    this.events = events;
    this.store = store;
    this.clock = clock;
    this.maxBatch = maxBatch;
    this.maxInFlight = maxInFlight;
    this.maxQueued = maxQueued;
  }

  /** Runs one request (a swarm.dispatch_batch item); completes with its result. */
  public Future<ProtocolStore.Result> submit(JsonObject item) {
    Promise<ProtocolStore.Result> promise = Promise.promise();
    onContext(() -> {
      if (queue.size() >= maxQueued) {
        promise.fail(SwarmErrors.overloaded());
        return;
      }
      queue.add(new Pending(item, promise));
      drain();
    });
    return promise.future();
  }

  private void drain() {
    while (inFlight < maxInFlight && !queue.isEmpty()) {
      List<Pending> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
      while (batch.size() < maxBatch && !queue.isEmpty()) {
        batch.add(queue.poll());
      }
      inFlight++;
      run(batch).onComplete(ar -> onContext(() -> {
        inFlight--;
        drain();
      }));
    }
  }

  private Future<Void> run(List<Pending> batch) {
    JsonArray items = new JsonArray();
    batch.forEach(p -> items.add(p.item()));
    metrics.batch(batch.size());
    return store.dispatchBatch(items, clock.instant()).transform(ar -> {
      if (ar.succeeded()) {
        events.accept(ar.result().events());
        List<ProtocolStore.Result> results = ar.result().results();
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).promise().tryComplete(results.get(i));
        }
        return Future.succeededFuture();
      }
      if (batch.size() > 1 && ar.cause() instanceof PgException) {
        LOG.warn("swarm batch of {} failed; running its requests one by one error={}", batch.size(), ar.cause().getMessage());
        List<Future<Void>> singles = new ArrayList<>();
        for (Pending p : batch) {
          singles.add(run(List.of(p)));
        }
        return Future.join(singles).mapEmpty();
      }
      batch.forEach(p -> p.promise().tryFail(ar.cause()));
      return Future.succeededFuture();
    });
  }

  private void onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
