package dev.conclave.gateway.sessions;

import dev.conclave.platform.testing.Await;
import java.time.Duration;
import dev.conclave.platform.errors.ConclaveException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission of registrations at a node's edge: after a node is lost, thousands of agents register
 * on the survivors at once; each registration is a handful of statements, and all of them queueing for
 * the pool at once made every one slow (and agents gave up on them, doubling the work). The gate lets a
 * few run and queues the rest in order; a queued one whose stream went away costs nothing.
 */
class RegistrationGateTest {

  private final Vertx vertx = Vertx.vertx();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void runsAtMostTheLimitAtOnceAndTheRestInArrivalOrder() throws Exception {
    RegistrationGate gate = new RegistrationGate(2, 100, new SessionMetrics(registry));
    List<Promise<String>> running = new CopyOnWriteArrayList<>();
    List<Integer> started = new CopyOnWriteArrayList<>();
    List<Future<String>> results = new ArrayList<>();
    Context context = vertx.getOrCreateContext();
    for (int i = 0; i < 6; i++) {
      int n = i;
      results.add(onContext(context, () -> gate.admit(context, () -> false, () -> {
        started.add(n);
        Promise<String> p = Promise.promise();
        running.add(p);
        return p.future();
      })));
    }
    await(() -> running.size() == 2);
    Thread.sleep(100);
    assertThat(running).hasSize(2);
    assertThat(gate.waiting()).isEqualTo(4);
    assertThat(registry.get("conclave_gateway_registrations_waiting").gauge().value()).isEqualTo(4.0);
    for (int i = 0; i < 6; i++) {
      int done = i;
      await(() -> running.size() > done);
      context.runOnContext(v -> running.get(done).complete("r" + done));
    }
    for (int i = 0; i < 6; i++) {
      assertThat(Await.await(results.get(i), Duration.ofSeconds(5))).isEqualTo("r" + i);
    }
    assertThat(started).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void aQueuedRegistrationWhoseStreamWentAwayNeverRuns() throws Exception {
    RegistrationGate gate = new RegistrationGate(1, 100, new SessionMetrics(registry));
    Context context = vertx.getOrCreateContext();
    Promise<String> first = Promise.promise();
    AtomicBoolean gone = new AtomicBoolean();
    AtomicInteger ranSecond = new AtomicInteger();
    Future<String> a = onContext(context, () -> gate.admit(context, () -> false, first::future));
    Future<String> b = onContext(context, () -> gate.admit(context, gone::get, () -> {
      ranSecond.incrementAndGet();
      return Future.succeededFuture("b");
    }));
    Future<String> c = onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("c")));
    await(() -> gate.waiting() == 2);
    gone.set(true);
    context.runOnContext(v -> first.complete("a"));
    assertThat(Await.await(c, Duration.ofSeconds(5))).isEqualTo("c");
    assertThat(a.result()).isEqualTo("a");
    assertThat(b.failed()).isTrue();
    assertThat(ranSecond).hasValue(0);
  }

  @Test
  void aFullQueueRefusesAtOnceSoTheAgentTriesAnotherNode() throws Exception {
    RegistrationGate gate = new RegistrationGate(1, 2, new SessionMetrics(registry));
    Context context = vertx.getOrCreateContext();
    Promise<String> hold = Promise.promise();
    onContext(context, () -> gate.admit(context, () -> false, hold::future));
    onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("x")));
    onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("y")));
    Future<String> refused = onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("z")));
    await(refused::isComplete);
    assertThat(refused.failed()).isTrue();
    assertThat(refused.cause()).isInstanceOf(ConclaveException.class);
    assertThat(((ConclaveException) refused.cause()).code()).isEqualTo("node_busy");
  }

  @Test
  void aRegistrationStuckPastTheLongestTurnGivesItsPlaceUp() throws Exception {
    RegistrationGate gate = new RegistrationGate(1, 100, java.time.Duration.ofMillis(300), new SessionMetrics(registry));
    Context context = vertx.getOrCreateContext();
    Promise<String> stuck = Promise.promise();
    Future<String> first = onContext(context, () -> gate.admit(context, () -> false, stuck::future));
    Future<String> next = onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("next")));
    assertThat(Await.await(next, Duration.ofSeconds(5))).isEqualTo("next");
    assertThat(first.isComplete()).isFalse();
    context.runOnContext(v -> stuck.complete("late"));
    assertThat(Await.await(first, Duration.ofSeconds(5))).isEqualTo("late");
    Future<String> after = onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("after")));
    assertThat(Await.await(after, Duration.ofSeconds(5))).isEqualTo("after");
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void aFailedRegistrationFreesItsPlace() throws Exception {
    RegistrationGate gate = new RegistrationGate(1, 100, new SessionMetrics(registry));
    Context context = vertx.getOrCreateContext();
    Future<String> failed = onContext(context, () -> gate.admit(context, () -> false, () -> Future.failedFuture("boom")));
    Future<String> next = onContext(context, () -> gate.admit(context, () -> false, () -> Future.succeededFuture("next")));
    assertThat(Await.await(next, Duration.ofSeconds(5))).isEqualTo("next");
    assertThat(failed.failed()).isTrue();
  }

  @Test
  void registrationsFromManyEventLoopsAtOnceAllRunWithinTheLimit() throws Exception {
    RegistrationGate gate = new RegistrationGate(3, 10_000, new SessionMetrics(registry));
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<Future<String>> all = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Context context = vertx.getOrCreateContext();
      Thread thread = new Thread(() -> {
        for (int i = 0; i < 250; i++) {
          all.add(onContext(context, () -> gate.admit(context, () -> false, () -> {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            Promise<String> p = Promise.promise();
            vertx.setTimer(1, id -> {
              now.decrementAndGet();
              p.complete("ok");
            });
            return p.future();
          })));
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    Await.await(Future.all(new ArrayList<>(all)), Duration.ofSeconds(30));
    assertThat(all).hasSize(1000);
    assertThat(most.get()).isBetween(1, 3);
    assertThat(gate.waiting()).isZero();
  }

  private static <T> Future<T> onContext(Context context, java.util.function.Supplier<Future<T>> call) {
    Promise<T> result = Promise.promise();
    context.runOnContext(v -> call.get().onComplete(result));
    return result.future();
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met in 10 s");
      }
      Thread.sleep(10);
    }
  }
}
