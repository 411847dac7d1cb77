package dev.conclave.gateway.store;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.support.StoreFixture;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two statements that write a request and its ledger events together.
 * {@link LedgerStore#enqueueWithInbound} queues a new request with its inbound event, or writes
 * nothing for a repeated idempotency key. {@link LedgerStore#appendForRequest} stores an agent's
 * events for its request in flight: it appends only while the request is dispatched to the writing
 * session's epoch with exactly the expected number of agent events stored, and then counts them and,
 * with a terminal event, ends the request. Whatever they refuse leaves the ledger and the
 * conversation's counter as they were.
 */
class RequestLedgerStatementsTest {

  private static final long EPOCH = 7;
  private static StoreFixture db;
  private static Pool pool;
  private static LedgerStore ledger;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    pool = db.pool();
    ledger = db.ledger();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private record Request(UUID id, String conversation, String agent) {
  }

  private static Request dispatched() {
    Request r = new Request(UUID.randomUUID(), "conv-" + UUID.randomUUID(), "agent-" + UUID.randomUUID());
    await(pool.preparedQuery("INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content,"
        + " state, dispatch_epoch, dispatched_at) VALUES ($1, $2, $3, $4, 'tester', $5, 'hello', 'dispatched', $6, now())")
      .execute(Tuple.of(r.id(), r.agent(), r.conversation(), UUID.randomUUID(), "k-" + r.id(), EPOCH)));
    return r;
  }

  private static List<LedgerEntry> chunks(Request r, String... texts) {
    return java.util.Arrays.stream(texts).map(t -> Entries.inbound(r.id(), r.agent(), UUID.randomUUID(), t, Instant.now())).toList();
  }

  private static LedgerStore.RequestAppend append(Request r, long epoch, long expected, List<LedgerEntry> entries, Optional<RequestState> end) {
    return await(pool.withTransaction(tx -> ledger.appendForRequest(tx, r.conversation(), r.agent(), entries, r.id(), epoch, expected,
      entries.size(), end)));
  }

  private static Row request(Request r) {
    return await(pool.preparedQuery("SELECT state, agent_events, finished_at FROM gateway.requests WHERE id = $1").execute(Tuple.of(r.id())))
      .iterator().next();
  }

  private static List<String> texts(Request r) {
    return await(ledger.after(r.conversation(), 0, 100)).stream().map(e -> e.text().orElseThrow()).toList();
  }

  @Test
  void aNewRequestIsQueuedWithItsInboundEventAndARepeatedKeyWritesNothing() {
    String conversation = "conv-" + UUID.randomUUID();
    String agent = "agent-" + UUID.randomUUID();
    UUID principal = UUID.randomUUID();
    UUID first = UUID.randomUUID();
    Optional<Long> seq = enqueue(conversation, agent, new LedgerStore.NewRequest(first, principal, "tester", "key-1", "hello",
      Optional.of(new byte[] {1, 2})));
    assertThat(seq).contains(1L);
    Row queued = await(pool.preparedQuery("SELECT state, agent_id, conversation_key, sender, content, attachments FROM gateway.requests"
      + " WHERE id = $1").execute(Tuple.of(first))).iterator().next();
    assertThat(queued.getString("state")).isEqualTo("queued");
    assertThat(queued.getString("agent_id")).isEqualTo(agent);
    assertThat(queued.getString("conversation_key")).isEqualTo(conversation);
    assertThat(queued.getString("sender")).isEqualTo("tester");
    assertThat(queued.getString("content")).isEqualTo("hello");
    assertThat(queued.getBuffer("attachments").getBytes()).containsExactly(1, 2);

    UUID repeat = UUID.randomUUID();
    assertThat(enqueue(conversation, agent, new LedgerStore.NewRequest(repeat, principal, "tester", "key-1", "hello again",
      Optional.empty()))).isEmpty();
    assertThat(await(pool.preparedQuery("SELECT 1 FROM gateway.requests WHERE id = $1").execute(Tuple.of(repeat))).size()).isZero();
    assertThat(await(ledger.after(conversation, 0, 100))).extracting(e -> e.text().orElseThrow()).containsExactly("hello");
    assertThat(await(ledger.lastSeq(conversation))).isEqualTo(1);

    // the same key of another principal is another request
    assertThat(enqueue(conversation, agent, new LedgerStore.NewRequest(UUID.randomUUID(), UUID.randomUUID(), "other", "key-1", "hi",
      Optional.empty()))).contains(2L);
  }

  private static Optional<Long> enqueue(String conversation, String agent, LedgerStore.NewRequest request) {
    LedgerEntry inbound = Entries.inbound(request.id(), request.sender(), request.principalId(), request.content(), Instant.now());
    return await(pool.withTransaction(tx -> ledger.enqueueWithInbound(tx, conversation, agent, inbound, request)));
  }

  @Test
  void appendsCountsAndEndsTheRequestInOrder() {
    Request r = dispatched();
    LedgerStore.RequestAppend first = append(r, EPOCH, 0, chunks(r, "a", "b"), Optional.empty());
    assertThat(first.stored()).contains(0L);
    assertThat(first.firstSeq()).contains(1L);
    assertThat(request(r).getLong("agent_events")).isEqualTo(2);
    assertThat(request(r).getString("state")).isEqualTo("dispatched");

    LedgerStore.RequestAppend last = append(r, EPOCH, 2, chunks(r, "c"), Optional.of(RequestState.DONE));
    assertThat(last.stored()).contains(2L);
    assertThat(last.firstSeq()).contains(3L);
    Row ended = request(r);
    assertThat(ended.getString("state")).isEqualTo("done");
    assertThat(ended.getLong("agent_events")).isEqualTo(3);
    assertThat(ended.getOffsetDateTime("finished_at")).isNotNull();
    assertThat(texts(r)).containsExactly("a", "b", "c");
    assertThat(await(ledger.lastSeq(r.conversation()))).isEqualTo(3);
  }

  @Test
  void aRetriedBatchThatAlreadyCommittedIsNotStoredTwice() {
    Request r = dispatched();
    append(r, EPOCH, 0, chunks(r, "a", "b"), Optional.empty());
    LedgerStore.RequestAppend again = append(r, EPOCH, 0, chunks(r, "a", "b"), Optional.empty());
    assertThat(again.stored()).contains(2L);
    assertThat(again.firstSeq()).isEmpty();
    assertThat(texts(r)).containsExactly("a", "b");
    assertThat(request(r).getLong("agent_events")).isEqualTo(2);
    assertThat(await(ledger.lastSeq(r.conversation()))).isEqualTo(2);
  }

  @Test
  void aCountThatDisagreesStoresNothingAndLeavesTheCounter() {
    Request r = dispatched();
    append(r, EPOCH, 0, chunks(r, "a"), Optional.empty());
    LedgerStore.RequestAppend off = append(r, EPOCH, 5, chunks(r, "b"), Optional.of(RequestState.DONE));
    assertThat(off.stored()).contains(1L);
    assertThat(off.firstSeq()).isEmpty();
    assertThat(texts(r)).containsExactly("a");
    assertThat(request(r).getString("state")).isEqualTo("dispatched");
    assertThat(await(ledger.lastSeq(r.conversation()))).isEqualTo(1);
  }

  @Test
  void anEndedRequestOrAnotherSessionsEpochGetsNothingStored() {
    Request r = dispatched();
    LedgerStore.RequestAppend stale = append(r, EPOCH - 1, 0, chunks(r, "from an older session"), Optional.empty());
    assertThat(stale.stored()).isEmpty();
    assertThat(stale.firstSeq()).isEmpty();

    append(r, EPOCH, 0, chunks(r, "done"), Optional.of(RequestState.ERROR));
    assertThat(request(r).getString("state")).isEqualTo("error");
    LedgerStore.RequestAppend late = append(r, EPOCH, 1, chunks(r, "too late"), Optional.empty());
    assertThat(late.stored()).isEmpty();
    assertThat(late.firstSeq()).isEmpty();
    assertThat(texts(r)).containsExactly("done");
    assertThat(await(ledger.lastSeq(r.conversation()))).isEqualTo(1);
  }
}
