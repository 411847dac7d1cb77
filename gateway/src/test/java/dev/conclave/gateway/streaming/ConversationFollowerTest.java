package dev.conclave.gateway.streaming;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.gateway.support.StoreFixture;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.streams.WriteStream;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A StreamEvents follower that hears of no new event (its node's subscription was lost from the
 * cluster's subscription map, as a merge after a partition can do) has nothing to notice a gap by;
 * subscribing again after the membership changed reads what it missed from the ledger.
 */
class ConversationFollowerTest {

  private static StoreFixture db;
  private static Vertx vertx;
  private static Pool pool;
  private static LedgerStore ledger;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    vertx = db.vertx();
    pool = db.pool();
    ledger = db.ledger();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void anEventThatNoLiveNoticeAnnouncedArrivesOnceTheFollowerSubscribesAgain() throws Exception {
    String conversation = "follow-" + UUID.randomUUID();
    append(conversation, "before");
    Collected out = new Collected();
    ConversationFollower follower = new ConversationFollower(vertx, ledger, new ApprovalStore(pool), new QuestionStore(pool), out,
      conversation, new SimpleMeterRegistry().counter("catchups"));
    Context context = vertx.getOrCreateContext();
    await(Future.<Void>future(p -> context.runOnContext(v -> follower.start(Optional.of(0L)).onComplete(p))));
    awaitCount(out, 1);

    // committed, but not published: as if the live event went to a subscription map without this node
    append(conversation, "unannounced");
    TimeUnit.MILLISECONDS.sleep(500);
    assertThat(out.events).as("events sent before re-subscribing").hasSize(1);

    follower.resubscribe();
    awaitCount(out, 2);
    assertThat(out.events.get(1).getEvent().getText()).isEqualTo("unannounced");
    TimeUnit.MILLISECONDS.sleep(300);
    assertThat(out.events).as("each event once").hasSize(2);
    context.runOnContext(v -> follower.stop());
  }

  private static void append(String conversation, String text) {
    await(pool.withTransaction(tx -> ledger.append(tx, conversation, "agent-" + conversation,
      List.of(Entries.inbound(UUID.randomUUID(), "tester", UUID.randomUUID(), text, Instant.now())))));
  }

  private static void awaitCount(Collected out, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.events.size() < n && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(out.events).as("events sent").hasSize(n);
  }

  /** A client's stream that takes everything. */
  private static final class Collected implements WriteStream<ClientStreamEvent> {

    final List<ClientStreamEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public WriteStream<ClientStreamEvent> exceptionHandler(Handler<Throwable> handler) {
      return this;
    }

    @Override
    public Future<Void> write(ClientStreamEvent data) {
      events.add(data);
      return Future.succeededFuture();
    }

    @Override
    public Future<Void> end() {
      return Future.succeededFuture();
    }

    @Override
    public WriteStream<ClientStreamEvent> setWriteQueueMaxSize(int maxSize) {
      return this;
    }

    @Override
    public boolean writeQueueFull() {
      return false;
    }

    @Override
    public WriteStream<ClientStreamEvent> drainHandler(Handler<Void> handler) {
      return this;
    }
  }
}
