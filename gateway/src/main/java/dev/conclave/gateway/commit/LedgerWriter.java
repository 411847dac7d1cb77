package dev.conclave.gateway.commit;

import dev.conclave.gateway.ledger.LedgerViews;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.streaming.LiveEvents;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every write that appends to the conversation ledger goes through here, so the rule "append, commit,
 * then publish" exists once; so does the dispatch of a request to its agent, to share the commits.
 *
 * <p>Group commit: each lane runs one transaction at a time; the units that arrive while one runs
 * share the next (up to {@link #MAX_UNITS}), run one after another in it (never interleaved: each
 * unit's checks see every earlier unit's writes, as if it ran alone), and one commit (one WAL flush)
 * serves them all. Units of {@linkplain #writeStatement one statement} send it without waiting for
 * the answers of the units before them, so a run of them reaches PostgreSQL as one pipelined flight,
 * BEGIN before it and, once the last unit has sent its statement, COMMIT behind it. An idle lane
 * starts a unit at once, so a lone write waits for nothing. A conversation's appends take its row lock, so they get consecutive sequence numbers,
 * and nobody sees an event before its transaction committed: followers are told only afterwards, in
 * sequence order. Once a transaction has committed, the lane's next one starts before this one
 * finishes (each of its units in turn has what it appended published, then is completed), so
 * PostgreSQL does not wait for that work; a lane's transactions still finish one after the other, in
 * commit order.
 *
 * <p>Failure: when a shared transaction fails (a database error, or a unit that waits between
 * statements failing), it rolls back whole, nothing of it is published, and each of its units runs
 * again alone in its own transaction; a unit that fails alone fails its caller. A unit of one
 * statement whose future fails without its statement failing (it refused its input before sending
 * it) fails alone, and the transaction commits the others. So a unit may run twice and must touch nothing but the
 * database through its {@link WriteTx} before it completes; callers act on the result afterwards.
 */
public final class LedgerWriter {

  /** Work in a shared transaction. */
  @FunctionalInterface
  public interface Unit<T> {
    Future<T> run(WriteTx tx);
  }

  /** The most units one transaction carries. */
  static final int MAX_UNITS = 128;

  private static final Logger LOG = LoggerFactory.getLogger(LedgerWriter.class);

  /** How a unit sends its statements. */
  private enum Shape {
    /** Any number, each maybe after the answer of another. */
    WAITS,
    /** Exactly one, as soon as it is run. */
    ONE_STATEMENT
  }

  private record Queued<T>(String key, Unit<T> unit, Shape shape, Promise<T> promise) {
    void complete(Object result) {
      @SuppressWarnings("unchecked")
      T t = (T) result;
      promise.tryComplete(t);
    }
  }

  private final Pool pool;
  private final LedgerStore ledger;
  private final Consumer<Published> publisher;
  private final Lane[] lanes;
  private final java.util.concurrent.atomic.AtomicLong transactions = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong units = new java.util.concurrent.atomic.AtomicLong();
  private volatile io.micrometer.core.instrument.Timer latency;

  /** An event committed to the ledger, handed to followers. */
  public record Published(String conversationKey, long seq, dev.conclave.gateway.ledger.LedgerEntry entry) {
  }

  /** @param lanes transactions that may run at once */
  public LedgerWriter(Pool pool, LedgerStore ledger, LiveEvents live, int lanes) {
    this(pool, ledger, p -> live.publish(p.conversationKey(), p.seq(), LedgerViews.streamEvent(p.conversationKey(), p.seq(), p.entry())), lanes);
  }

  LedgerWriter(Pool pool, LedgerStore ledger, Consumer<Published> publisher, int lanes) {
    this.pool = pool;
    this.ledger = ledger;
    this.publisher = publisher;
    this.lanes = new Lane[Math.max(1, lanes)];
    for (int i = 0; i < this.lanes.length; i++) {
      this.lanes[i] = new Lane();
    }
  }

  /**
   * Runs {@code unit} in the next transaction of the lane {@code key} maps to. Writers pass the id of
   * the agent whose rows the unit changes where they know it: one agent's writes then share a lane,
   * so two lanes' transactions rarely wait for each other's locks. Completes after the commit, and
   * after what the unit appended was published.
   */
  public <T> Future<T> write(String key, Unit<T> unit) {
    return add(key, unit, Shape.WAITS);
  }

  /**
   * {@link #write}, for a unit of exactly one statement, sent as soon as the unit is run. The next
   * unit of its transaction then runs right behind it instead of after its answer: their statements
   * go out together, pipelined on the connection, and PostgreSQL still runs them in order, so each
   * unit sees every earlier unit's writes as before. The transaction's COMMIT may go out before the
   * unit's answer has come back, so what the unit does with it must not fail. When the unit has its
   * transaction to itself (the lane was idle), it needs no transaction block: the statement goes
   * alone and commits as it completes, one message to PostgreSQL instead of four (BEGIN, the
   * statement, the check and COMMIT). A second statement of the unit is refused
   * ({@link TransactionSql}).
   */
  public <T> Future<T> writeStatement(String key, Unit<T> unit) {
    return add(key, unit, Shape.ONE_STATEMENT);
  }

  private <T> Future<T> add(String key, Unit<T> unit, Shape shape) {
    Promise<T> promise = Promise.promise();
    lanes[Math.floorMod(key.hashCode(), lanes.length)].add(new Queued<>(key, unit, shape, promise));
    io.micrometer.core.instrument.Timer timer = latency;
    if (timer != null) {
      long start = System.nanoTime();
      promise.future().onComplete(ar -> timer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS));
    }
    return promise.future();
  }

  /** Records each write's time from its arrival (queue wait included) to its commit and publication. */
  public void measure(io.micrometer.core.instrument.Timer latency) {
    this.latency = latency;
  }

  /** Writes waiting for their lane's next transaction (read by a gauge, from any thread: a hint). */
  public int queued() {
    int queued = 0;
    for (Lane lane : lanes) {
      queued += lane.queue.size();
    }
    return queued;
  }

  /** Transactions committed so far (shared and alone). */
  public long transactions() {
    return transactions.get();
  }

  /** Units committed so far; with {@link #transactions()}, how much group commit saved. */
  public long units() {
    return units.get();
  }

  private final class Lane {
    private final ArrayDeque<Queued<?>> queue = new ArrayDeque<>();
    private boolean running;
    /** Completes once the lane's last committed transaction has been published and its units completed. */
    private Future<Void> lastFinished = Future.succeededFuture();

    void add(Queued<?> q) {
      synchronized (this) {
        queue.add(q);
        if (running) {
          return;
        }
        running = true;
      }
      next();
    }

    private void next() {
      List<Queued<?>> batch = new ArrayList<>();
      synchronized (this) {
        while (!queue.isEmpty() && batch.size() < MAX_UNITS) {
          batch.add(queue.poll());
        }
        if (batch.isEmpty()) {
          running = false;
          return;
        }
      }
      // in key order (a stable sort: one key's units keep their order), so transactions running at
      // once, on this node or another, mostly take their row locks in the same order: a deadlock
      // would fail the shared transaction and run each unit again alone
      batch.sort(Comparator.comparing(Queued::key));
      run(batch).onComplete(ar -> {
        Runnable finish = ar.result();
        // the transaction has committed: the lane's next one goes out before this one finishes
        // (publishes and completes its units: work on this node, not in PostgreSQL), so PostgreSQL
        // is not kept waiting for it. Transactions still finish in the order they committed: each
        // finishes after the one before it has
        Promise<Void> finished = Promise.promise();
        Future<Void> before;
        synchronized (this) {
          before = lastFinished;
          lastFinished = finished.future();
        }
        next();
        before.onComplete(v -> {
          try {
            finish.run();
          } finally {
            finished.complete();
          }
        });
      });
    }

    /**
     * One shared transaction; on failure, each unit alone. Never fails: it yields what finishes the
     * transaction (publishes and completes or fails its units).
     */
    private Future<Runnable> run(List<Queued<?>> batch) {
      return commit(batch).transform(ar -> {
        if (ar.succeeded()) {
          return Future.succeededFuture(ar.result());
        }
        if (batch.size() == 1) {
          return Future.succeededFuture(() -> batch.get(0).promise().tryFail(ar.cause()));
        }
        LOG.warn("a group commit of {} ledger writes failed; running each alone error={}", batch.size(), ar.cause().getMessage());
        // each unit alone, one after the other; they finish together, in order, as one transaction would
        List<Runnable> finishes = new ArrayList<>(batch.size());
        Future<Void> alone = Future.succeededFuture();
        for (Queued<?> q : batch) {
          alone = alone.transform(x -> commit(List.of(q)).transform(r -> {
            finishes.add(r.succeeded() ? r.result() : () -> q.promise().tryFail(r.cause()));
            return Future.succeededFuture();
          }));
        }
        return alone.map(v -> () -> finishes.forEach(Runnable::run));
      });
    }

    /**
     * Runs the units in one transaction. Succeeds when it committed, with what then publishes and
     * completes them; a unit that failed without failing it (one of one statement that failed before
     * sending it, say) then fails alone, and the others complete.
     */
    private Future<Runnable> commit(List<Queued<?>> batch) {
      if (batch.size() == 1 && batch.get(0).shape() == Shape.ONE_STATEMENT) {
        return statementAlone(batch.get(0));
      }
      List<WriteTx> txs = new ArrayList<>(batch.size());
      List<Future<?>> results = new ArrayList<>(batch.size());
      return pool.getConnection().compose(conn -> {
        // BEGIN is not waited for: the units' statements go out right behind it, pipelined on the
        // connection. BEGIN fails only with its connection, and then so does everything behind it
        Future<?> begun = conn.query("BEGIN").execute();
        // one unit after the other: a unit checks and then acts in several statements (lock the
        // request, append, end it), and another unit's statements in between, in the same
        // transaction, would not be held off by its row locks. A unit of one statement has sent it
        // once it has been run, so the next one may follow at once
        Future<Void> gate = Future.succeededFuture();
        for (Queued<?> q : batch) {
          WriteTx tx = new WriteTx(new TransactionSql(conn, q.shape() == Shape.ONE_STATEMENT), ledger);
          txs.add(tx);
          Promise<Object> result = Promise.promise();
          results.add(result.future());
          Future<Void> started = gate.map(v -> {
            runUnit(q, tx).onComplete(ar -> result.handle(ar.map(r -> (Object) r)));
            return null;
          });
          started.onFailure(result::tryFail);
          gate = q.shape() == Shape.ONE_STATEMENT ? started : result.future().mapEmpty();
        }
        return gate.transform(sent -> {
          // every statement of the transaction has been sent: none may follow the end of it, where
          // it would run outside the transaction
          txs.forEach(WriteTx::seal);
          return sent.succeeded() ? end(conn, begun, results) : rollback(conn, results, sent.cause());
        }).onComplete(ar -> conn.close());
      }).map(v -> () -> committed(batch, txs, results));
    }

    /**
     * After a commit: for each unit in turn, publishes what it appended, then completes it with its
     * result; a unit's caller acts without waiting for the fan-out of the units behind it.
     */
    private void committed(List<Queued<?>> batch, List<WriteTx> txs, List<Future<?>> results) {
      transactions.incrementAndGet();
      units.addAndGet(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        publish(txs.get(i));
        Future<?> result = results.get(i);
        if (result.succeeded()) {
          batch.get(i).complete(result.result());
        } else {
          batch.get(i).promise().tryFail(result.cause());
        }
      }
    }

    /**
     * A unit of one statement with a transaction to itself: the statement alone, which PostgreSQL
     * commits as it completes (or, failing, leaves no trace of).
     */
    private Future<Runnable> statementAlone(Queued<?> q) {
      List<WriteTx> txs = new ArrayList<>(1);
      List<Future<?>> results = new ArrayList<>(1);
      return pool.getConnection().compose(conn -> {
        WriteTx tx = new WriteTx(new TransactionSql(conn, true), ledger);
        txs.add(tx);
        Future<?> result = runUnit(q, tx);
        results.add(result);
        return result.onComplete(ar -> {
          tx.seal();
          conn.close();
        });
      }).map(v -> () -> committed(List.of(q), txs, results));
    }

    /**
     * Ends a transaction whose statements have all been sent: COMMIT goes out right behind them, not
     * after their answers, so the transaction waits for one round trip to PostgreSQL fewer. A
     * statement that failed has aborted the transaction, and PostgreSQL then rolls it back at the
     * COMMIT (answering it without an error); the {@code SELECT 1} just before the COMMIT tells which
     * happened, as every statement in an aborted transaction fails.
     */
    private Future<Void> end(SqlConnection conn, Future<?> begun, List<Future<?>> results) {
      // (prepared: planned once per connection, not at every transaction as a simple query would be)
      Future<?> open = conn.preparedQuery("SELECT 1").execute();
      Future<?> committed = conn.query("COMMIT").execute();
      return Future.join(Future.join(results), Future.join(List.of(begun, open, committed))).transform(all -> {
        if (begun.succeeded() && open.succeeded() && committed.succeeded()) {
          return Future.succeededFuture();
        }
        // rolled back (or its outcome lost with the connection): the cause a unit saw says why
        for (Future<?> r : results) {
          if (r.failed()) {
            return Future.failedFuture(r.cause());
          }
        }
        return Future.failedFuture(begun.failed() ? begun.cause() : open.failed() ? open.cause() : committed.cause());
      });
    }

    /**
     * Rolls back a transaction in which a unit that waits between statements failed: ROLLBACK goes
     * out behind what was sent, and the transaction ends once every unit that ran has completed.
     */
    private Future<Void> rollback(SqlConnection conn, List<Future<?>> results, Throwable cause) {
      Future<?> rolledBack = conn.query("ROLLBACK").execute();
      return Future.join(Future.join(results), rolledBack).transform(ar -> Future.failedFuture(cause));
    }

    private static Future<?> runUnit(Queued<?> q, WriteTx tx) {
      try {
        return q.unit().run(tx);
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }

    /**
     * Publishes what one unit appended, in sequence order per conversation. The units of a transaction
     * ran in order, so publishing them one after the other keeps each conversation's order.
     */
    private void publish(WriteTx tx) {
      for (WriteTx.Appended a : tx.appended()) {
        for (int i = 0; i < a.entries().size(); i++) {
          Published p = new Published(a.conversationKey(), a.firstSeq() + i, a.entries().get(i));
          try {
            publisher.accept(p);
          } catch (RuntimeException e) {
            LOG.warn("publishing a committed ledger event failed conversation={} seq={} error={}", p.conversationKey(), p.seq(), e.toString());
          }
        }
      }
    }
  }
}
