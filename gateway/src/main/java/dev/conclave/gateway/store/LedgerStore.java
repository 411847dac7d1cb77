package dev.conclave.gateway.store;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The conversation ledger. Appending takes the conversation row's lock, so one conversation's
 * events get consecutive sequence numbers and commit in that order.
 */
public final class LedgerStore {

  private static final SqlFile SQL = SqlFile.of(LedgerStore.class, "ledger.sql");

  /** The statements HotStatementPlansTest reads the plans of: see {@code ledger.sql} for what each does. */
  static final NamedStatement APPEND = SQL.get("Append");
  static final NamedStatement APPEND_FOR_REQUEST = SQL.get("AppendForRequest");

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
    NamedStatement.Binding append;
    try {
      append = bindEntries(APPEND, conversationKey, agentId, entries);
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return append.execute(tx).map(rows -> {
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
    NamedStatement.Binding append;
    try {
      append = bindEntries(APPEND_FOR_REQUEST, conversationKey, agentId, entries)
        .with("request_id", requestId).with("epoch", epoch).with("expected_stored", expectedStored).with("counted", (long) counted)
        .with("end_state", end.map(RequestState::id).orElse(null));
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return append.execute(tx).map(rows -> {
      Row r = rows.iterator().next();
      return new RequestAppend(Optional.ofNullable(r.getLong("stored")), Optional.ofNullable(r.getLong("first_seq")));
    });
  }

  /**
   * {@code statement} bound with the parameters of an append (the conversation, its agent, and the
   * entries one array per column); the statement's own ones are the caller's. Refuses entries too large.
   * Also for an appending statement kept beside its caller (a client's message: {@code mailbox.sql}).
   */
  public NamedStatement.Binding bindEntries(NamedStatement statement, String conversationKey, String agentId, List<LedgerEntry> entries) {
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
    return statement.with("conversation_key", conversationKey).with("agent_id", agentId).with("count", (long) n)
      .with("request_ids", requestIds).with("kinds", kinds).with("authors", authors).with("texts", texts)
      .with("payloads", payloads).with("raws", raws).with("actors", actors).with("ats", ats);
  }

  /** Events with {@code seq > after}, in order, at most {@code limit}. */
  public Future<List<LedgerEvent>> after(String conversationKey, long after, int limit) {
    return SQL.get("After").with("conversation_key", conversationKey).with("after", after).with("limit", limit)
      .execute(pool)
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** The {@code limit} events before {@code before} (the newest ones when it is empty), oldest first. */
  public Future<List<LedgerEvent>> before(String conversationKey, Optional<Long> before, int limit) {
    return SQL.get("Before").with("conversation_key", conversationKey).with("before", before.orElse(null)).with("limit", limit)
      .execute(pool)
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** A page for GetEvents: after a sequence number, optionally within a time range. */
  public Future<List<LedgerEvent>> page(String conversationKey, long after, Optional<Instant> since, Optional<Instant> until, int limit) {
    return SQL.get("Page").with("conversation_key", conversationKey).with("after", after)
      .with("since", since.map(Rows::utc).orElse(null)).with("until", until.map(Rows::utc).orElse(null)).with("limit", limit)
      .execute(pool)
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** Every event of one request, in order. */
  public Future<List<LedgerEvent>> ofRequest(UUID requestId) {
    return SQL.get("OfRequest").with("request_id", requestId)
      .execute(pool)
      .map(rows -> Rows.all(rows, LedgerStore::map));
  }

  /** The newest sequence number of the conversation (0 when it has none). */
  public Future<Long> lastSeq(String conversationKey) {
    return SQL.get("LastSeq").with("conversation_key", conversationKey)
      .execute(pool)
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
