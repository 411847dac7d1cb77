package dev.conclave.gateway.commit;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.StoreFixture;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group-commit ledger writer against a real PostgreSQL: order per conversation, nothing visible
 * before its commit, and a database error in a shared transaction failing only the unit that caused
 * it, with nothing of the failed transaction half-visible.
 */
class LedgerWriterTest {

  private static StoreFixture db;
  private static Vertx vertx;
  private static Pool pool;
  private static LedgerStore ledger;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(4);
    vertx = db.vertx();
    pool = db.pool();
    ledger = db.ledger();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private static LedgerWriter writer(ConcurrentLinkedQueue<LedgerWriter.Published> published) {
    return new LedgerWriter(pool, ledger, published::add, 1);
  }

  private static LedgerWriter.Unit<Long> appendOne(String conversation, String text) {
    return tx -> tx.append(conversation, "agent-" + conversation, List.of(inbound(text)));
  }

  private static dev.conclave.gateway.ledger.LedgerEntry inbound(String text) {
    return Entries.inbound(UUID.randomUUID(), "tester", UUID.randomUUID(), text, Instant.now());
  }

  private static List<LedgerEvent> stored(String conversation) {
    return GatewayFixture.await(ledger.after(conversation, 0, 10_000));
  }

  private static String text(LedgerEvent e) {
    return e.text().orElseThrow();
  }

  @Test
  void concurrentAppendsToAConversationGetConsecutiveSequenceNumbersAndArePublishedInThatOrder() throws Exception {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    int perThread = 100;
    ExecutorService threads = Executors.newFixedThreadPool(4);
    List<Future<Long>> seqs = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; t++) {
      int thread = t;
      threads.submit(() -> {
        for (int i = 0; i < perThread; i++) {
          seqs.add(writer.write("agent-order", appendOne("order", "t" + thread + "-" + i)));
          seqs.add(writer.write("agent-other", appendOne("order-other", "t" + thread + "-" + i)));
        }
      });
    }
    threads.shutdown();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    GatewayFixture.await(Future.all(new ArrayList<>(seqs)));

    List<LedgerEvent> rows = stored("order");
    assertThat(rows).extracting(LedgerEvent::seq).containsExactlyElementsOf(range(1, 4 * perThread));
    for (int t = 0; t < 4; t++) {
      String prefix = "t" + t + "-";
      List<String> mine = rows.stream().map(LedgerWriterTest::text).filter(x -> x.startsWith(prefix)).toList();
      assertThat(mine).as("one writer's appends keep their order").containsExactlyElementsOf(
        java.util.stream.IntStream.range(0, perThread).mapToObj(i -> prefix + i).toList());
    }
    List<Long> publishedOrder = published.stream().filter(p -> p.conversationKey().equals("order")).map(LedgerWriter.Published::seq).toList();
    assertThat(publishedOrder).as("published once each, in sequence order").containsExactlyElementsOf(range(1, 4 * perThread));
    assertThat(writer.transactions()).as("appends shared transactions").isLessThan(writer.units());
  }

  @Test
  void nothingIsVisibleOrPublishedBeforeItsTransactionCommits() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    Promise<Void> release = Promise.promise();
    Promise<Void> appended = Promise.promise();
    Future<Long> write = writer.write("agent-visible", tx -> tx.append("visible", "agent-visible", List.of(inbound("held")))
      .compose(seq -> {
        appended.complete();
        return release.future().map(seq);
      }));
    GatewayFixture.await(appended.future());

    // (the append went out right behind BEGIN, before BEGIN was answered: it is in the transaction all the same)
    assertThat(stored("visible")).as("another connection sees nothing while the transaction is open").isEmpty();
    assertThat(published).as("nothing published before the commit").isEmpty();
    assertThat(write.isComplete()).isFalse();

    release.complete();
    assertThat(GatewayFixture.await(write)).isEqualTo(1L);
    assertThat(stored("visible")).extracting(LedgerWriterTest::text).containsExactly("held");
    assertThat(published).extracting(LedgerWriter.Published::seq).containsExactly(1L);
  }

  @Test
  void aLanesNextTransactionRunsBeforeTheOneBeforeItIsPublishedYetTransactionsFinishInCommitOrder() {
    List<String> finished = java.util.Collections.synchronizedList(new ArrayList<>());
    LedgerWriter writer = new LedgerWriter(pool, ledger, p -> finished.add("published " + p.seq()), 1);
    Promise<Void> release = Promise.promise();
    Future<Long> first = writer.write("agent-overlap", tx -> release.future()
      .compose(v -> tx.append("overlap", "agent-overlap", List.of(inbound("first")))));
    first.onSuccess(seq -> finished.add("completed " + seq));
    // queued while the first one's transaction is open: it gets the lane's next transaction
    java.util.concurrent.atomic.AtomicReference<Boolean> firstDoneWhenSecondRan = new java.util.concurrent.atomic.AtomicReference<>();
    Future<Long> second = writer.write("agent-overlap", tx -> {
      firstDoneWhenSecondRan.set(first.isComplete());
      return tx.append("overlap", "agent-overlap", List.of(inbound("second")));
    });
    second.onSuccess(seq -> finished.add("completed " + seq));
    release.complete();

    assertThat(GatewayFixture.await(second)).isEqualTo(2L);
    assertThat(firstDoneWhenSecondRan.get()).as("the lane's next transaction went out before the first one was published and completed")
      .isFalse();
    assertThat(finished).as("each transaction published and completed after the one that committed before it")
      .containsExactly("published 1", "completed 1", "published 2", "completed 2");
  }

  @Test
  void unitsSharingATransactionRunOneAfterAnotherSoACheckThenActSeesEveryEarlierUnitsWrite() {
    resetCounter("writer_counter");
    LedgerWriter writer = writer(new ConcurrentLinkedQueue<>());
    // hold the lane, so the next units queue and share one transaction
    Promise<Void> release = Promise.promise();
    Future<Integer> blocker = writer.write("agent-counter", tx -> release.future().map(0));
    List<Future<Integer>> increments = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      // read, then write what was read plus one: right only if no other unit's statements come between
      increments.add(writer.write("agent-counter", tx -> tx.sql().query("SELECT n FROM public.writer_counter WHERE id = 1 FOR UPDATE").execute()
        .map(rows -> rows.iterator().next().getInteger("n"))
        .compose(n -> tx.sql().query("UPDATE public.writer_counter SET n = " + (n + 1) + " WHERE id = 1").execute().map(n + 1))));
    }
    release.complete();
    GatewayFixture.await(Future.all(new ArrayList<Future<?>>(increments)).compose(v -> blocker));

    assertThat(increments).extracting(f -> f.result()).as("each unit saw the one before it").containsExactly(1, 2, 3, 4, 5);
    assertThat(GatewayFixture.await(pool.query("SELECT n FROM public.writer_counter WHERE id = 1").execute()).iterator().next().getInteger("n"))
      .isEqualTo(5);
    assertThat(writer.transactions()).as("the five shared one transaction").isEqualTo(2);
  }

  @Test
  void aDatabaseErrorInASharedTransactionFailsOnlyTheUnitThatCausedItAndNothingOfItIsHalfVisible() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    // hold the lane, so the next four units queue and share one transaction
    Promise<Void> release = Promise.promise();
    Future<Long> blocker = writer.write("agent-batch", tx -> release.future().compose(v -> tx.append("batch", "agent-batch", List.of(inbound("first")))));
    Future<Long> a = writer.write("agent-batch", appendOne("batch", "a"));
    Future<Long> b = writer.write("agent-batch", appendOne("batch", "b"));
    Future<Long> bad = writer.write("agent-batch", tx -> tx.append("batch", "agent-batch", List.of(inbound("bad")))
      .compose(seq -> tx.sql().query("SELECT 1 / 0").execute().map(seq)));
    Future<Long> d = writer.write("agent-batch", appendOne("batch", "d"));
    release.complete();

    GatewayFixture.await(Future.join(List.of(blocker, a, b, bad, d)).otherwiseEmpty());
    assertThat(List.of(blocker, a, b, d)).allSatisfy(f -> assertThat(f.succeeded()).isTrue());
    assertThat(bad.failed()).isTrue();
    assertThat(bad.cause().getMessage()).contains("division by zero");

    List<LedgerEvent> rows = stored("batch");
    assertThat(rows).extracting(LedgerWriterTest::text).as("each good append stored once, the bad one not at all")
      .containsExactly("first", "a", "b", "d");
    assertThat(rows).extracting(LedgerEvent::seq).containsExactly(1L, 2L, 3L, 4L);
    assertThat(published).extracting(p -> p.entry().text().orElseThrow()).containsExactly("first", "a", "b", "d");
    assertThat(List.of(a, b, d)).extracting(Future::result).containsExactly(2L, 3L, 4L);

    // the lane goes on
    assertThat(GatewayFixture.await(writer.write("agent-batch", appendOne("batch", "after")))).isEqualTo(5L);
  }

  @Test
  void unitsOfOneStatementGoOutTogetherYetRunInOrderAndAUnitThatWaitsHoldsBackTheUnitsBehindIt() {
    resetCounter("writer_at_once");
    LedgerWriter writer = writer(new ConcurrentLinkedQueue<>());
    Promise<Void> holdLane = Promise.promise();
    Future<Integer> blocker = writer.write("agent-at-once", tx -> holdLane.future().map(0));
    // the first unit has sent its statement, but answers only when released
    Promise<Void> releaseFirst = Promise.promise();
    java.util.concurrent.atomic.AtomicBoolean secondRan = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean afterWaiterRan = new java.util.concurrent.atomic.AtomicBoolean();
    Future<Integer> first = writer.writeStatement("agent-at-once", tx -> increment(tx).compose(n -> releaseFirst.future().map(n)));
    Future<Integer> second = writer.writeStatement("agent-at-once", tx -> {
      secondRan.set(true);
      return increment(tx);
    });
    // a plain unit, held the same way: what comes after it waits until it completes
    Promise<Void> releaseWaiter = Promise.promise();
    Future<Integer> waiter = writer.write("agent-at-once", tx -> increment(tx).compose(n -> releaseWaiter.future().map(n)));
    Future<Integer> afterWaiter = writer.writeStatement("agent-at-once", tx -> {
      afterWaiterRan.set(true);
      return increment(tx);
    });
    holdLane.complete();

    GatewayFixture.await(vertx.timer(300));
    assertThat(secondRan).as("the unit behind one of one statement ran before that one completed").isTrue();
    assertThat(afterWaiterRan).as("nothing runs past a plain unit until it completes").isFalse();
    assertThat(second.isComplete()).as("nothing completes before the transaction commits").isFalse();

    releaseFirst.complete();
    releaseWaiter.complete();
    GatewayFixture.await(Future.all(List.of(blocker, first, second, waiter, afterWaiter)));
    assertThat(List.of(first, second, waiter, afterWaiter)).extracting(Future::result)
      .as("each saw every earlier unit's write: PostgreSQL ran them in order").containsExactly(1, 2, 3, 4);
    assertThat(writer.transactions()).as("the four shared one transaction").isEqualTo(2);
  }

  @Test
  void aFailingUnitOfOneStatementFailsAloneAndLeavesNothingOfItsTransactionHalfVisible() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    Promise<Void> release = Promise.promise();
    Future<Integer> blocker = writer.write("agent-at-once-batch", tx -> release.future().map(0));
    Future<Long> a = writer.writeStatement("agent-at-once-batch", appendOne("at-once-batch", "a"));
    // its statement fails, and with it the transaction the three share
    Future<Long> bad = writer.writeStatement("agent-at-once-batch", tx -> tx.sql().query("SELECT 1 / 0").execute().map(rows -> 0L));
    Future<Long> c = writer.writeStatement("agent-at-once-batch", appendOne("at-once-batch", "c"));
    release.complete();

    GatewayFixture.await(Future.join(List.of(blocker, a, bad, c)).otherwiseEmpty());
    assertThat(List.of(blocker, a, c)).allSatisfy(f -> assertThat(f.succeeded()).isTrue());
    assertThat(bad.failed()).isTrue();
    assertThat(bad.cause().getMessage()).contains("division by zero");
    assertThat(stored("at-once-batch")).extracting(LedgerWriterTest::text).as("the good appends once each, after the shared transaction rolled back")
      .containsExactly("a", "c");
    assertThat(published).extracting(p -> p.entry().text().orElseThrow()).containsExactly("a", "c");
  }

  @Test
  void theCommitGoesOutBehindTheStatementsOfUnitsOfOneStatementWithoutWaitingForTheirAnswers() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    Promise<Void> release = Promise.promise();
    // the unit's statement is answered, but the unit completes only when released
    Future<Long> write = writer.writeStatement("agent-early", tx -> tx.append("early", "agent-early", List.of(inbound("early")))
      .compose(seq -> release.future().map(seq)));

    long deadline = System.currentTimeMillis() + 10_000;
    while (stored("early").isEmpty() && System.currentTimeMillis() < deadline) {
      GatewayFixture.await(vertx.timer(20));
    }
    assertThat(stored("early")).extracting(LedgerWriterTest::text).as("committed while the unit still runs").containsExactly("early");
    assertThat(published).as("published only once every unit of the transaction has completed").isEmpty();
    assertThat(write.isComplete()).isFalse();

    release.complete();
    assertThat(GatewayFixture.await(write)).isEqualTo(1L);
    assertThat(published).extracting(LedgerWriter.Published::seq).containsExactly(1L);
  }

  @Test
  void aSecondStatementOfAUnitOfOneStatementIsRefusedAndNeverRunsOutsideTheTransaction() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    Promise<Void> release = Promise.promise();
    Future<Integer> blocker = writer.write("agent-late", tx -> release.future().map(0));
    Future<Long> a = writer.writeStatement("agent-late", appendOne("late", "a"));
    // breaks its promise of one statement: a second append, after the first's answer
    Future<Long> late = writer.writeStatement("agent-late", tx -> tx.append("late", "agent-late", List.of(inbound("first of two")))
      .compose(seq -> tx.append("late", "agent-late", List.of(inbound("second of two")))));
    Future<Long> c = writer.writeStatement("agent-late", appendOne("late", "c"));
    release.complete();

    GatewayFixture.await(Future.join(List.of(blocker, a, late, c)).otherwiseEmpty());
    assertThat(late.failed()).isTrue();
    assertThat(late.cause()).isInstanceOf(IllegalStateException.class).hasMessageContaining("a second statement of a unit written as one statement");
    assertThat(List.of(a, c)).allSatisfy(f -> assertThat(f.succeeded()).isTrue());
    assertThat(stored("late")).extracting(LedgerWriterTest::text).as("what was sent in time committed; the late statement never ran")
      .containsExactly("a", "first of two", "c");
    assertThat(published).extracting(p -> p.entry().text().orElseThrow()).containsExactly("a", "first of two", "c");
    assertThat(writer.transactions()).as("no unit ran again").isEqualTo(2);
  }

  @Test
  void aUnitOfOneStatementThatFailsBeforeSendingItFailsAloneAndTheOthersCommitOnce() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    Promise<Void> release = Promise.promise();
    Future<Integer> blocker = writer.write("agent-refused", tx -> release.future().map(0));
    Future<Long> a = writer.writeStatement("agent-refused", appendOne("refused", "a"));
    Future<Long> refused = writer.writeStatement("agent-refused", tx -> Future.failedFuture(new IllegalArgumentException("entry too large")));
    Future<Long> c = writer.writeStatement("agent-refused", appendOne("refused", "c"));
    release.complete();

    GatewayFixture.await(Future.join(List.of(blocker, a, refused, c)).otherwiseEmpty());
    assertThat(refused.failed()).isTrue();
    assertThat(refused.cause()).hasMessage("entry too large");
    assertThat(List.of(a, c)).extracting(Future::result).containsExactly(1L, 2L);
    assertThat(stored("refused")).extracting(LedgerWriterTest::text).containsExactly("a", "c");
    assertThat(writer.transactions()).as("the others committed in their shared transaction, once").isEqualTo(2);
  }

  @Test
  void aUnitOfOneStatementAloneGoesWithoutATransactionBlockAndInASharedTransactionLikeAnyOther() {
    ConcurrentLinkedQueue<LedgerWriter.Published> published = new ConcurrentLinkedQueue<>();
    LedgerWriter writer = writer(published);
    // the first command of a transaction is the only one whose statement and transaction start together
    LedgerWriter.Unit<Boolean> firstCommand = tx -> tx.sql().query("SELECT statement_timestamp() = transaction_timestamp() AS first").execute()
      .map(rows -> rows.iterator().next().getBoolean("first"));
    assertThat(GatewayFixture.await(writer.writeStatement("agent-one", firstCommand))).as("alone: no BEGIN before it").isTrue();
    assertThat(GatewayFixture.await(writer.writeStatement("agent-one", appendOne("one", "alone")))).isEqualTo(1L);
    assertThat(stored("one")).extracting(LedgerWriterTest::text).containsExactly("alone");
    assertThat(published).extracting(p -> p.entry().text().orElseThrow()).containsExactly("alone");

    Promise<Void> release = Promise.promise();
    Future<Integer> blocker = writer.write("agent-one", tx -> release.future().map(0));
    Future<Boolean> shared = writer.writeStatement("agent-one", firstCommand);
    Future<Long> second = writer.writeStatement("agent-one", appendOne("one", "shared"));
    release.complete();
    assertThat(GatewayFixture.await(shared)).as("in a shared transaction: BEGIN came first").isFalse();
    assertThat(GatewayFixture.await(second)).isEqualTo(2L);
    GatewayFixture.await(blocker);
    assertThat(writer.transactions()).as("two alone, the blocker's, and the one the two behind it shared").isEqualTo(4);
  }

  @Test
  void aSecondStatementOfAUnitWrittenAsOneIsRefused() {
    LedgerWriter writer = writer(new ConcurrentLinkedQueue<>());
    Future<Long> two = writer.writeStatement("agent-two", tx -> tx.append("two", "agent-two", List.of(inbound("first")))
      .compose(seq -> tx.append("two", "agent-two", List.of(inbound("second")))));
    GatewayFixture.await(two.otherwiseEmpty());
    assertThat(two.cause()).isInstanceOf(IllegalStateException.class).hasMessageContaining("second statement");
    assertThat(stored("two")).extracting(LedgerWriterTest::text).as("the second never ran").containsExactly("first");
  }

  /** A one-row table {@code public.<table>} whose counter {@code n} (row 1) starts at 0. */
  private static void resetCounter(String table) {
    GatewayFixture.await(pool.query("CREATE TABLE IF NOT EXISTS public." + table + " (id int PRIMARY KEY, n int NOT NULL)").execute()
      .compose(v -> pool.query("INSERT INTO public." + table + " VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0").execute()));
  }

  private static Future<Integer> increment(WriteTx tx) {
    return tx.sql().query("UPDATE public.writer_at_once SET n = n + 1 WHERE id = 1 RETURNING n").execute()
      .map(rows -> rows.iterator().next().getInteger("n"));
  }

  private static List<Long> range(long from, long to) {
    return java.util.stream.LongStream.rangeClosed(from, to).boxed().toList();
  }
}
