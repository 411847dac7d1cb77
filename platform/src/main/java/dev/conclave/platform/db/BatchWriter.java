package dev.conclave.platform.db;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * Writes records in batches (one statement per batch) for logs that must not hold up the work they
 * record: records are queued (bounded), written every tick and as long as more wait; a failed batch
 * goes back to the front of the queue, in order. A record that cannot be kept (the queue is full, or
 * the database refuses for too long) is counted in {@code lost} and logged, never dropped silently.
 */
public final class BatchWriter<T> {

  private static final Logger LOG = LoggerFactory.getLogger(BatchWriter.class);
  static final long WARN_EVERY_MS = 10_000;

  private final String what;
  private final int maxQueued;
  private final int batch;
  private final Function<List<T>, Future<Void>> insert;
  private final Counter lost;
  private final Deque<T> queue = new ArrayDeque<>();
  private boolean writing;
  /** Callers of {@link #flush} that came while a write was under way: they wait for the end of it. */
  private final List<Promise<Void>> waiting = new ArrayList<>();
  private long lastWarning;

  /**
   * @param what what the records are, for the log line ("tool calls", "audit entries")
   * @param insert writes one batch in one statement
   */
  public BatchWriter(String what, int maxQueued, int batch, Function<List<T>, Future<Void>> insert, Counter lost) {
    this.what = what;
    this.maxQueued = maxQueued;
    this.batch = batch;
    this.insert = insert;
    this.lost = lost;
  }

  /** Writes every {@code tickMs} (and on, while records wait). */
  public void start(Vertx vertx, long tickMs) {
    vertx.setPeriodic(tickMs, t -> flush());
  }

  public synchronized void add(T record) {
    if (queue.size() >= maxQueued) {
      dropped(1, "the queue is full");
      return;
    }
    queue.add(record);
  }

  /**
   * Writes what is queued; also before the node stops. Never fails. When it completes, every record
   * added before the call is written (or counted as lost): a call made while a write is under way
   * waits for that write and the ones after it.
   */
  public Future<Void> flush() {
    List<T> next;
    synchronized (this) {
      if (writing) {
        Promise<Void> done = Promise.promise();
        waiting.add(done);
        return done.future();
      }
      if (queue.isEmpty()) {
        return Future.succeededFuture();
      }
      writing = true;
      next = new ArrayList<>(Math.min(batch, queue.size()));
      while (next.size() < batch && !queue.isEmpty()) {
        next.add(queue.poll());
      }
    }
    Future<Void> written;
    try {
      written = insert.apply(next);
    } catch (RuntimeException e) {
      written = Future.failedFuture(e);
    }
    return written.onComplete(ar -> {
      synchronized (this) {
        writing = false;
        if (ar.failed()) {
          int kept = 0;
          for (int i = next.size() - 1; i >= 0 && queue.size() < maxQueued; i--, kept++) {
            queue.addFirst(next.get(i));
          }
          if (kept < next.size()) {
            dropped(next.size() - kept, "the database refused them: " + ar.cause().getMessage());
          }
        }
      }
    }).compose(v -> {
      boolean more;
      synchronized (this) {
        more = !queue.isEmpty();
      }
      return more ? flush() : settled();
    }, err -> settled());
  }

  /** The end of a run of writes: whoever waited for it may go on. */
  private Future<Void> settled() {
    List<Promise<Void>> done;
    synchronized (this) {
      done = new ArrayList<>(waiting);
      waiting.clear();
    }
    done.forEach(Promise::tryComplete);
    return Future.succeededFuture();
  }

  public synchronized int queued() {
    return queue.size();
  }

  private void dropped(int n, String why) {
    lost.increment(n);
    long now = System.currentTimeMillis();
    if (now - lastWarning > WARN_EVERY_MS) {
      lastWarning = now;
      LOG.warn("{} {} could not be written ({}); the total is counted", n, what, why);
    }
  }
}
