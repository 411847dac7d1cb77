package dev.conclave.gateway.store;

import dev.conclave.gateway.mailbox.Mailbox;
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
 * {@link Mailbox#enqueueWithInbound} queues a new request with its inbound event, or writes
 * nothing for a repeated idempotency key; asked to, it dispatches the request in the same statement
 * when the agent is idle with nothing queued, and two such statements racing leave one in flight. {@link LedgerStore#appendForRequest} stores an agent's
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
    Request r = new Request(UUID.randomUUID(), "test:conv-" + UUID.randomUUID(), "agent-" + UUID.randomUUID());
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
    String conversation = "test:conv-" + UUID.randomUUID();
    String agent = "agent-" + UUID.randomUUID();
    UUID principal = UUID.randomUUID();
    UUID first = UUID.randomUUID();
    Optional<Long> seq = enqueue(conversation, agent, new Mailbox.NewRequest(first, principal, "tester", "key-1", "hello",
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
    assertThat(enqueue(conversation, agent, new Mailbox.NewRequest(repeat, principal, "tester", "key-1", "hello again",
      Optional.empty()))).isEmpty();
    assertThat(await(pool.preparedQuery("SELECT 1 FROM gateway.requests WHERE id = $1").execute(Tuple.of(repeat))).size()).isZero();
    assertThat(await(ledger.after(conversation, 0, 100))).extracting(e -> e.text().orElseThrow()).containsExactly("hello");
    assertThat(await(ledger.lastSeq(conversation))).isEqualTo(1);

    // the same key of another principal is another request
    assertThat(enqueue(conversation, agent, new Mailbox.NewRequest(UUID.randomUUID(), UUID.randomUUID(), "other", "key-1", "hi",
      Optional.empty()))).contains(2L);
  }

  private static Optional<Long> enqueue(String conversation, String agent, Mailbox.NewRequest request) {
    Mailbox.Enqueued enqueued = enqueue(conversation, agent, request, Optional.empty());
    assertThat(enqueued.dispatched()).isEmpty();
    return enqueued.firstSeq();
  }

  private static Mailbox.Enqueued enqueue(String conversation, String agent, Mailbox.NewRequest request,
                                              Optional<Mailbox.DispatchTo> dispatch) {
    return await(pool.withTransaction(tx -> enqueue(tx, conversation, agent, request, dispatch)));
  }

  /** Binds the conversation ({@code test:…}) to the agent, unless it is bound already, then enqueues. */
  private static io.vertx.core.Future<Mailbox.Enqueued> enqueue(io.vertx.sqlclient.SqlClient tx, String conversation, String agent,
                                                                    Mailbox.NewRequest request, Optional<Mailbox.DispatchTo> dispatch) {
    return bind(tx, conversation, agent).compose(v -> enqueueAlone(tx, conversation, agent, request, dispatch));
  }

  private static io.vertx.core.Future<Mailbox.Enqueued> enqueueAlone(io.vertx.sqlclient.SqlClient tx, String conversation, String agent,
                                                                         Mailbox.NewRequest request,
                                                                         Optional<Mailbox.DispatchTo> dispatch) {
    LedgerEntry inbound = Entries.inbound(request.id(), request.sender(), request.principalId(), request.content(), Instant.now());
    return Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inbound), request, dispatch, true);
  }

  private static io.vertx.core.Future<Void> bind(io.vertx.sqlclient.SqlClient tx, String conversation, String agent) {
    return tx.preparedQuery("INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id) VALUES ($1, split_part($2, ':', 1),"
        + " substr($2, strpos($2, ':') + 1), $3) ON CONFLICT (frontend, channel_id) DO UPDATE SET agent_id = EXCLUDED.agent_id")
      .execute(Tuple.of(UUID.randomUUID(), conversation, agent)).mapEmpty();
  }

  /** A member's message is written only while the member may act on the agent; an admin's always. */
  @Test
  void aMembersMessageIsWrittenOnlyWhileTheMemberMayActOnTheAgent() {
    UUID owner = principal("client", null);
    UUID stranger = principal("client", null);
    UUID agentPrincipal = principal("agent", owner);
    String agent = "agent-" + UUID.randomUUID();
    await(pool.preparedQuery("INSERT INTO gateway.agents (agent_id, principal_id, instance_id, epoch, lifecycle) VALUES ($1, $2, $3, 1, 'running')")
      .execute(Tuple.of(agent, agentPrincipal, "i-" + agent)));
    String conversation = "test:conv-" + UUID.randomUUID();
    await(bind(pool, conversation, agent));

    Mailbox.NewRequest outsider = requestOf(stranger, "let me in");
    Mailbox.Enqueued refused = await(pool.withTransaction(tx -> Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inboundOf(outsider)),
      outsider, Optional.empty(), false)));
    assertThat(refused).isEqualTo(new Mailbox.Enqueued(true, false, Optional.empty(), Optional.empty()));
    assertThat(await(ledger.lastSeq(conversation))).isZero();

    for (UUID allowed : List.of(owner, agentPrincipal)) {
      Mailbox.NewRequest request = requestOf(allowed, "hello");
      Mailbox.Enqueued written = await(pool.withTransaction(tx -> Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inboundOf(request)),
        request, Optional.empty(), false)));
      assertThat(written.allowed()).isTrue();
      assertThat(written.firstSeq()).isPresent();
    }
    // a grant lets the stranger in, and taking it back shuts the stranger out again
    await(pool.preparedQuery("INSERT INTO auth.agent_grants (agent_principal_id, grantee_id, granted_by) VALUES ($1, $2, $3)")
      .execute(Tuple.of(agentPrincipal, stranger, owner)));
    Mailbox.NewRequest granted = requestOf(stranger, "thanks");
    assertThat(await(pool.withTransaction(tx -> Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inboundOf(granted)), granted,
      Optional.empty(), false))).firstSeq()).contains(3L);
    await(pool.preparedQuery("DELETE FROM auth.agent_grants WHERE grantee_id = $1").execute(Tuple.of(stranger)));
    Mailbox.NewRequest revoked = requestOf(stranger, "again");
    assertThat(await(pool.withTransaction(tx -> Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inboundOf(revoked)), revoked,
      Optional.empty(), false))).allowed()).isFalse();
    // an admin may write to any agent
    Mailbox.NewRequest admins = requestOf(stranger, "admin here");
    assertThat(await(pool.withTransaction(tx -> Mailbox.enqueueWithInbound(tx, ledger, conversation, agent, java.util.List.of(inboundOf(admins)), admins,
      Optional.empty(), true))).firstSeq()).contains(4L);
  }

  private static UUID principal(String type, UUID owner) {
    UUID id = UUID.randomUUID();
    await(pool.preparedQuery("INSERT INTO auth.principals (id, type, display_name, status, owner_id) VALUES ($1, $2, 'p', 'approved', $3)")
      .execute(Tuple.of(id, type, owner)));
    return id;
  }

  private static Mailbox.NewRequest requestOf(UUID principal, String content) {
    return new Mailbox.NewRequest(UUID.randomUUID(), principal, "tester", "key-" + UUID.randomUUID(), content, Optional.empty());
  }

  private static LedgerEntry inboundOf(Mailbox.NewRequest request) {
    return Entries.inbound(request.id(), request.sender(), request.principalId(), request.content(), Instant.now());
  }

  @Test
  void aMessageIsWrittenOnlyWhileItsConversationRoutesToTheAgentAndTheAgentIsNotRetired() {
    String conversation = "test:conv-" + UUID.randomUUID();
    String first = agent(1, "running");
    String second = agent(EPOCH, "running");
    await(bind(pool, conversation, first));
    Mailbox.Enqueued elsewhere = await(pool.withTransaction(tx -> enqueueAlone(tx, conversation, second, newRequest("misrouted"), HERE)));
    assertThat(elsewhere).isEqualTo(new Mailbox.Enqueued(false, true, Optional.empty(), Optional.empty()));
    assertThat(await(ledger.lastSeq(conversation))).isZero();
    assertThat(await(pool.preparedQuery("SELECT 1 FROM gateway.requests WHERE conversation_key = $1").execute(Tuple.of(conversation))).size())
      .isZero();

    // the binding moves: now the second agent's message is written, and the first one's is not
    await(bind(pool, conversation, second));
    assertThat(await(pool.withTransaction(tx -> enqueueAlone(tx, conversation, first, newRequest("stale"), Optional.empty()))).routed())
      .isFalse();
    Mailbox.Enqueued routed = await(pool.withTransaction(tx -> enqueueAlone(tx, conversation, second, newRequest("hello"), HERE)));
    assertThat(routed.routed()).isTrue();
    assertThat(routed.firstSeq()).contains(1L);
    assertThat(routed.dispatched()).isPresent();

    // a key that is an agent's id goes to that agent while it is not retired, and to no other
    String direct = agent(1, "running");
    assertThat(await(pool.withTransaction(tx -> enqueueAlone(tx, direct, direct, newRequest("hi"), Optional.empty()))).firstSeq()).contains(1L);
    assertThat(await(pool.withTransaction(tx -> enqueueAlone(tx, direct, first, newRequest("hi"), Optional.empty()))).routed()).isFalse();
    String retired = agent(1, "retired");
    assertThat(await(pool.withTransaction(tx -> enqueueAlone(tx, retired, retired, newRequest("too late"), Optional.empty()))).routed())
      .isFalse();
    assertThat(await(ledger.lastSeq(retired))).isZero();
    // an unknown key goes nowhere
    String nowhere = "agent-" + UUID.randomUUID();
    assertThat(await(pool.withTransaction(tx -> enqueueAlone(tx, nowhere, nowhere, newRequest("hello?"), Optional.empty()))).routed())
      .isFalse();
  }

  /** An agent row with its newest session's epoch and a lifecycle state. */
  private static String agent(long epoch, String lifecycle) {
    String agent = "agent-" + UUID.randomUUID();
    await(pool.preparedQuery("INSERT INTO gateway.agents (agent_id, principal_id, instance_id, epoch, lifecycle) VALUES ($1, $2, $3, $4, $5)")
      .execute(Tuple.of(agent, UUID.randomUUID(), "i-" + agent, epoch, lifecycle)));
    return agent;
  }

  private static Mailbox.NewRequest newRequest(String content) {
    return new Mailbox.NewRequest(UUID.randomUUID(), UUID.randomUUID(), "tester", "key-" + UUID.randomUUID(), content, Optional.empty());
  }

  private static Row stored(UUID id) {
    return await(pool.preparedQuery("SELECT state, dispatch_epoch, dispatch_node, dispatched_at FROM gateway.requests WHERE id = $1")
      .execute(Tuple.of(id))).iterator().next();
  }

  private static final Optional<Mailbox.DispatchTo> HERE = Optional.of(new Mailbox.DispatchTo(EPOCH, "node-a"));

  @Test
  void aMessageForAnIdleRunningAgentIsDispatchedToItsSessionInTheSameStatement() {
    String agent = agent(EPOCH, "running");
    String conversation = "test:conv-" + UUID.randomUUID();
    Mailbox.NewRequest request = newRequest("hello");
    Mailbox.Enqueued enqueued = enqueue(conversation, agent, request, HERE);
    assertThat(enqueued.firstSeq()).contains(1L);
    assertThat(enqueued.dispatched()).hasValueSatisfying(r -> {
      assertThat(r.id()).isEqualTo(request.id());
      assertThat(r.state()).isEqualTo(RequestState.DISPATCHED);
      assertThat(r.dispatchEpoch()).contains(EPOCH);
      assertThat(r.dispatchNode()).contains("node-a");
      assertThat(r.conversationKey()).isEqualTo(conversation);
      assertThat(r.content()).isEqualTo("hello");
    });
    Row row = stored(request.id());
    assertThat(row.getString("state")).isEqualTo("dispatched");
    assertThat(row.getLong("dispatch_epoch")).isEqualTo(EPOCH);
    assertThat(row.getString("dispatch_node")).isEqualTo("node-a");
    assertThat(row.getOffsetDateTime("dispatched_at")).isNotNull();
    assertThat(await(ledger.after(conversation, 0, 100))).extracting(e -> e.text().orElseThrow()).containsExactly("hello");

    // the agent now has a request in flight: the next message queues behind it
    Mailbox.NewRequest next = newRequest("again");
    Mailbox.Enqueued second = enqueue(conversation, agent, next, HERE);
    assertThat(second.firstSeq()).contains(2L);
    assertThat(second.dispatched()).isEmpty();
    assertThat(stored(next.id()).getString("state")).isEqualTo("queued");
  }

  @Test
  void aMessageIsOnlyQueuedWhenOlderOnesWaitOrTheSessionMayNotTakeWork() {
    // an older request queued first is the agent's next one, whatever arrives after it
    String backlog = agent(EPOCH, "running");
    Mailbox.NewRequest older = newRequest("first");
    enqueue("test:conv-" + UUID.randomUUID(), backlog, older, Optional.empty());
    Mailbox.NewRequest newer = newRequest("second");
    assertThat(enqueue("test:conv-" + UUID.randomUUID(), backlog, newer, HERE).dispatched()).isEmpty();
    assertThat(stored(older.id()).getString("state")).isEqualTo("queued");
    assertThat(stored(newer.id()).getString("state")).isEqualTo("queued");

    // a session that is no longer the agent's newest, a paused agent, an unknown one
    for (String agent : List.of(agent(EPOCH + 1, "running"), agent(EPOCH, "paused"), "agent-" + UUID.randomUUID())) {
      Mailbox.NewRequest request = newRequest("hello");
      Mailbox.Enqueued enqueued = enqueue("test:conv-" + UUID.randomUUID(), agent, request, HERE);
      assertThat(enqueued.firstSeq()).contains(1L);
      assertThat(enqueued.dispatched()).as(agent).isEmpty();
      assertThat(stored(request.id()).getString("state")).isEqualTo("queued");
    }

    // a repeated idempotency key writes nothing, and dispatches nothing
    String agent = agent(EPOCH, "running");
    Mailbox.NewRequest request = newRequest("hello");
    String conversation = "test:conv-" + UUID.randomUUID();
    enqueue(conversation, agent, request, Optional.empty());
    await(pool.preparedQuery("UPDATE gateway.requests SET state = 'done' WHERE id = $1").execute(Tuple.of(request.id())));
    Mailbox.NewRequest repeat = new Mailbox.NewRequest(UUID.randomUUID(), request.principalId(), "tester", request.idempotencyKey(),
      "hello", Optional.empty());
    assertThat(enqueue(conversation, agent, repeat, HERE)).isEqualTo(new Mailbox.Enqueued(true, true, Optional.empty(), Optional.empty()));
  }

  /** Waits until a statement waits for a lock another transaction holds (asking on {@code conn}). */
  private static void awaitBlockedStatement(io.vertx.sqlclient.SqlConnection conn) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (await(conn.query("SELECT 1 FROM pg_locks WHERE NOT granted").execute()).size() == 0) {
      assertThat(System.nanoTime()).as("a statement waiting for a lock").isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  @Test
  void twoStatementsDispatchingToOneAgentAtOnceLeaveOneInFlightAndFailTheOtherAsALostRace() {
    String agent = agent(EPOCH, "running");
    io.vertx.sqlclient.SqlConnection first = await(pool.getConnection());
    try {
      await(first.query("BEGIN").execute());
      Mailbox.NewRequest a = newRequest("a");
      assertThat(await(enqueue(first, "test:conv-" + UUID.randomUUID(), agent, a, HERE)).dispatched()).isPresent();
      // the second does not see the first's uncommitted row, so it dispatches too, and waits on the
      // one-in-flight index until the first commits
      Mailbox.NewRequest b = newRequest("b");
      io.vertx.core.Future<Mailbox.Enqueued> second = pool.withTransaction(tx -> enqueue(tx, "test:conv-" + UUID.randomUUID(), agent, b, HERE));
      awaitBlockedStatement(first);
      await(first.query("COMMIT").execute());
      Throwable lost = await(second.transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause())));
      assertThat(RequestStore.lostDispatchRace(lost)).as("%s", lost).isTrue();
      assertThat(stored(a.id()).getString("state")).isEqualTo("dispatched");
      assertThat(await(pool.preparedQuery("SELECT 1 FROM gateway.requests WHERE id = $1").execute(Tuple.of(b.id()))).size()).isZero();
    } finally {
      first.close();
    }
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
