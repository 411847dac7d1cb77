package dev.conclave.gateway.store;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The conversation ledger. Appending takes the conversation row's lock, so one conversation's
 * events get consecutive sequence numbers and commit in that order.
 */
public final class LedgerStore {

  /**
   * Advances a conversation's counter by {@code $3} (creating the conversation, of agent {@code $2},
   * on its first event), once for each row {@code from} yields; returns the new {@code last_seq}.
   * Taking the conversation row's lock is what orders one conversation's appends.
   */
  private static String advance(String from) {
    return "INSERT INTO gateway.conversations AS c (conversation_key, agent_id, last_seq) SELECT $1::text, $2::text, $3::bigint" + from
      + " ON CONFLICT (conversation_key) DO UPDATE SET last_seq = c.last_seq + $3 RETURNING last_seq";
  }

  /** Inserts the {@code $3} entries ({@code $4}…{@code $11}, one array per column) after a CTE {@code c} that advanced the counter. */
  private static final String INSERT_EVENTS =
    " INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)"
      + " SELECT $1, c.last_seq - $3 + u.ord, u.request_id, u.kind, u.author, u.text, u.payload, u.raw, u.actor, u.at"
      + " FROM c, unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::bytea[], $9::bytea[], $10::uuid[], $11::timestamptz[])"
      + " WITH ORDINALITY AS u(request_id, kind, author, text, payload, raw, actor, at, ord)"
      + " RETURNING seq";

  private static final String APPEND = "WITH c AS (" + advance("") + ")" + INSERT_EVENTS;

  /**
   * {@link #APPEND} of a new request's inbound event, with the request's insert in the same
   * statement: request {@code $12} of principal {@code $13} (sender {@code $14}, idempotency key
   * {@code $15}, content {@code $16}, attachments {@code $17}) is queued for agent {@code $2} in
   * conversation {@code $1}, and the event appended, unless the (principal, idempotency key) pair was
   * used before: then nothing is written. With a session epoch {@code $18} (and node {@code $19}),
   * the request is dispatched to that session at once instead, when the agent may take work
   * ({@link RequestStore#takesWork}) and has nothing queued or in flight: the one request it would be
   * handed next is this one. Nothing is written either unless conversation {@code $1} (of frontend
   * {@code $20} and channel {@code $21}) still routes to agent {@code $2} and that agent is not
   * retired: the node may have taken the route from what it remembered; nor unless principal
   * {@code $13} may act on that agent ({@link AgentAccess#allows}), or is an admin ({@code $22}).
   * The request keeps the sender's trace context {@code $23} (null: none).
   * Answers whether the route held and the principal was allowed, the event's sequence number (null:
   * nothing was written: a duplicate, a route that did not hold, a principal not allowed) and the
   * request's row.
   */
  static final String ENQUEUE_WITH_INBOUND =
    "WITH r AS (SELECT COALESCE(" + Routes.agentOf("$1", "$20::text", "$21::text") + " = $2 AND NOT " + Routes.retired("$2") + ", false) AS routed,"
      + " $22::boolean OR " + AgentAccess.allows("$2", "$13") + " AS allowed),"
      + " d AS (SELECT COALESCE($18::bigint IS NOT NULL AND " + RequestStore.takesWork("$2", "$18::bigint")
      // (two conditions, not one with IN: each is then answered by its partial index)
      + " AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = $2 AND state = 'queued')"
      + " AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = $2 AND state = 'dispatched'), false) AS now),"
      + " q AS (INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, attachments,"
      + " state, dispatched_at, dispatch_epoch, dispatch_node, trace_context)"
      + " SELECT $12, $2, $1, $13, $14, $15, $16, $17, CASE WHEN d.now THEN 'dispatched' ELSE 'queued' END,"
      + " CASE WHEN d.now THEN now() END, CASE WHEN d.now THEN $18::bigint END, CASE WHEN d.now THEN $19::text END, $23::text"
      + " FROM d, r WHERE r.routed AND r.allowed"
      + " ON CONFLICT (principal_id, idempotency_key) DO NOTHING RETURNING " + RequestStore.COLUMNS + "),"
      + " c AS (" + advance(" FROM q") + "),"
      + " e AS (" + INSERT_EVENTS + ")"
      + " SELECT (SELECT routed FROM r) AS routed, (SELECT allowed FROM r) AS allowed, (SELECT min(seq) FROM e) AS first_seq, q.* FROM (VALUES (true)) one LEFT JOIN q ON true";

  /**
   * {@link #APPEND} for an agent's events of its request in flight, with the request's checks and
   * bookkeeping in the same statement: it appends only while request {@code $12} is dispatched to
   * session epoch {@code $13} with {@code $14} agent events stored (locking it), then counts
   * {@code $15} more and, with a state {@code $16}, ends it. Answers what was stored before (null:
   * not in flight for that epoch) and the first new sequence number (null: nothing appended).
   */
  static final String APPEND_FOR_REQUEST =
    "WITH r AS (SELECT agent_events FROM gateway.requests WHERE id = $12 AND state = 'dispatched' AND dispatch_epoch = $13 FOR UPDATE),"
      + " c AS (" + advance(" FROM r WHERE r.agent_events = $14") + "),"
      + " e AS (" + INSERT_EVENTS + "),"
      + " n AS (UPDATE gateway.requests SET agent_events = agent_events + $15, state = COALESCE($16::text, state),"
      + " finished_at = CASE WHEN $16::text IS NULL THEN finished_at ELSE now() END WHERE id = $12 AND EXISTS (SELECT 1 FROM c))"
      + " SELECT (SELECT agent_events FROM r) AS stored, (SELECT min(seq) FROM e) AS first_seq";

  private static final String COLUMNS = "conversation_key, seq, request_id, kind, author, text, payload, actor_principal_id, created_at";

  private final Pool pool;
  private final int maxEventBytes;

  /** @param maxEventBytes the largest entry stored ({@code CONCLAVE_MAX_EVENT_BYTES}), so any page of history stays pageable */
  public LedgerStore(Pool pool, int maxEventBytes) {
    this.pool = pool;
    this.maxEventBytes = maxEventBytes;
  }

  /** Refuses an entry larger than the node stores (RESOURCE_EXHAUSTED {@code event_too_large}). */
  public void checkSize(LedgerEntry entry) {
    int bytes = Math.max(entry.view().getSerializedSize(), entry.raw().map(r -> r.length).orElse(0));
    if (bytes > maxEventBytes) {
      throw GatewayErrors.eventTooLarge(bytes, maxEventBytes);
    }
  }

  /** Appends entries in order (inside the caller's transaction); returns the first sequence number. */
  public Future<Long> append(SqlClient tx, String conversationKey, String agentId, List<LedgerEntry> entries) {
    Object[] params;
    try {
      params = params(conversationKey, agentId, entries);
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return tx.preparedQuery(APPEND).execute(Tuple.from(params)).map(rows -> {
      long min = Long.MAX_VALUE;
      for (Row r : rows) {
        min = Math.min(min, r.getLong("seq"));
      }
      return min;
    });
  }

  /**
   * What {@link #appendForRequest} found and did: the request's agent events stored before it (empty
   * when the request is no longer in flight for the epoch) and the first sequence number appended
   * (empty when nothing was).
   */
  public record RequestAppend(Optional<Long> stored, Optional<Long> firstSeq) {
  }

  /**
   * Appends an agent's entries for its request in flight, in one statement with the checks and the
   * bookkeeping (inside the caller's transaction): only if the request is still dispatched to
   * {@code epoch} with exactly {@code expectedStored} agent events stored, and then it counts
   * {@code counted} more agent events and, with {@code end}, ends the request.
   */
  public Future<RequestAppend> appendForRequest(SqlClient tx, String conversationKey, String agentId, List<LedgerEntry> entries,
                                                UUID requestId, long epoch, long expectedStored, int counted, Optional<RequestState> end) {
    Object[] params;
    try {
      params = params(conversationKey, agentId, entries,
        requestId, epoch, expectedStored, (long) counted, end.map(RequestState::id).orElse(null));
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return tx.preparedQuery(APPEND_FOR_REQUEST).execute(Tuple.from(params)).map(rows -> {
      Row r = rows.iterator().next();
      return new RequestAppend(Optional.ofNullable(r.getLong("stored")), Optional.ofNullable(r.getLong("first_seq")));
    });
  }

  /** A request to queue: what a client sent, and who sent it. */
  public record NewRequest(UUID id, UUID principalId, String sender, String idempotencyKey, String content, Optional<byte[]> attachments,
                           Optional<String> traceContext) {

    /** A request sent outside a trace. */
    public NewRequest(UUID id, UUID principalId, String sender, String idempotencyKey, String content, Optional<byte[]> attachments) {
      this(id, principalId, sender, idempotencyKey, content, attachments, Optional.empty());
    }
  }

  /** The session a new request may be dispatched to at once: its epoch, on node {@code node}. */
  public record DispatchTo(long epoch, String node) {
  }

  /**
   * What {@link #enqueueWithInbound} did: whether the conversation still routes to the agent and
   * whether the sender may act on it (unless both, nothing was written), the inbound entry's sequence
   * number (empty when nothing was written: also when the (principal, idempotency key) was used
   * before), and the request when it was dispatched at once.
   */
  public record Enqueued(boolean routed, boolean allowed, Optional<Long> firstSeq, Optional<RequestRecord> dispatched) {
  }

  /**
   * Queues a new request and appends its inbound entry in one statement (inside the caller's
   * transaction), if the conversation still routes to {@code agentId} and the request's principal
   * may act on that agent (any agent, with {@code admin}); with {@code dispatch},
   * dispatches it to that session in the same statement when the agent is idle with an empty queue
   * (see {@link #ENQUEUE_WITH_INBOUND}). Two sessions dispatching
   * at once fail one statement on the one-in-flight index ({@link RequestStore#lostDispatchRace}).
   */
  public Future<Enqueued> enqueueWithInbound(SqlClient tx, String conversationKey, String agentId, LedgerEntry inbound,
                                             NewRequest request, Optional<DispatchTo> dispatch, boolean admin) {
    Object[] params;
    try {
      params = params(conversationKey, agentId, List.of(inbound), request.id(), request.principalId(), request.sender(),
        request.idempotencyKey(), request.content(), request.attachments().map(Buffer::buffer).orElse(null),
        dispatch.map(DispatchTo::epoch).orElse(null), dispatch.map(DispatchTo::node).orElse(null),
        Routes.frontend(conversationKey).orElse(null), Routes.channel(conversationKey).orElse(null), admin,
        request.traceContext().orElse(null));
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return tx.preparedQuery(ENQUEUE_WITH_INBOUND).execute(Tuple.from(params)).map(rows -> {
      Row r = rows.iterator().next();
      // (a repeated key wrote no request: its columns are null)
      boolean dispatched = RequestState.DISPATCHED.id().equals(r.getString("state"));
      return new Enqueued(r.getBoolean("routed"), r.getBoolean("allowed"), Optional.ofNullable(r.getLong("first_seq")),
        dispatched ? Optional.of(RequestStore.map(r)) : Optional.empty());
    });
  }

  /**
   * The parameters {@code $1}…{@code $11} of an append, then the statement's own ones ({@code $12}…,
   * in order); refuses entries too large.
   */
  private Object[] params(String conversationKey, String agentId, List<LedgerEntry> entries, Object... more) {
    entries.forEach(this::checkSize);
    int n = entries.size();
    UUID[] requestIds = new UUID[n];
    String[] kinds = new String[n];
    String[] authors = new String[n];
    String[] texts = new String[n];
    Buffer[] payloads = new Buffer[n];
    Buffer[] raws = new Buffer[n];
    UUID[] actors = new UUID[n];
    OffsetDateTime[] ats = new OffsetDateTime[n];
    for (int i = 0; i < n; i++) {
      LedgerEntry e = entries.get(i);
      requestIds[i] = e.requestId().orElse(null);
      kinds[i] = e.kind().id();
      authors[i] = e.author();
      texts[i] = e.text().orElse(null);
      payloads[i] = Buffer.buffer(e.view().toByteArray());
      raws[i] = e.raw().map(Buffer::buffer).orElse(null);
      actors[i] = e.actorPrincipalId().orElse(null);
      ats[i] = Rows.utc(e.at());
    }
    Object[] base = {conversationKey, agentId, (long) n, requestIds, kinds, authors, texts, payloads, raws, actors, ats};
    Object[] params = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, params, base.length, more.length);
    return params;
  }

  /** Events with {@code seq > after}, in order, at most {@code limit}. */
  public Future<List<LedgerEvent>> after(String conversationKey, long after, int limit) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.events WHERE conversation_key = $1 AND seq > $2 ORDER BY seq LIMIT $3")
      .execute(Tuple.of(conversationKey, after, limit))
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** The {@code limit} events before {@code before} (the newest ones when it is empty), oldest first. */
  public Future<List<LedgerEvent>> before(String conversationKey, Optional<Long> before, int limit) {
    return pool.preparedQuery("SELECT * FROM (SELECT " + COLUMNS + " FROM gateway.events WHERE conversation_key = $1"
        + " AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3) newest ORDER BY seq")
      .execute(Tuple.of(conversationKey, before.orElse(null), limit))
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** A page for GetEvents: after a sequence number, optionally within a time range. */
  public Future<List<LedgerEvent>> page(String conversationKey, long after, Optional<Instant> since, Optional<Instant> until, int limit) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.events WHERE conversation_key = $1 AND seq > $2"
        + " AND ($3::timestamptz IS NULL OR created_at >= $3) AND ($4::timestamptz IS NULL OR created_at <= $4)"
        + " ORDER BY seq LIMIT $5")
      .execute(Tuple.of(conversationKey, after, since.map(Rows::utc).orElse(null), until.map(Rows::utc).orElse(null), limit))
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** Every event of one request, in order. */
  public Future<List<LedgerEvent>> ofRequest(UUID requestId) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.events WHERE request_id = $1 ORDER BY seq")
      .execute(Tuple.of(requestId))
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** The newest sequence number of the conversation (0 when it has none). */
  public Future<Long> lastSeq(String conversationKey) {
    return pool.preparedQuery("SELECT last_seq FROM gateway.conversations WHERE conversation_key = $1")
      .execute(Tuple.of(conversationKey))
      .map(rows -> Rows.first(rows, r -> r.getLong("last_seq")).orElse(0L));
  }

  static LedgerEvent map(Row r) {
    return new LedgerEvent(
      r.getString("conversation_key"),
      r.getLong("seq"),
      Optional.ofNullable(r.getUUID("request_id")),
      EventKind.of(r.getString("kind")).orElseThrow(),
      r.getString("author"),
      Optional.ofNullable(r.getString("text")),
      r.getBuffer("payload").getBytes(),
      Optional.ofNullable(r.getUUID("actor_principal_id")),
      r.getOffsetDateTime("created_at").toInstant());
  }
}
