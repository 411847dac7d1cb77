package dev.conclave.gateway.store;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.ledger.LedgerEvent;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

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

  private static final String APPEND =
    "WITH c AS ("
      + " INSERT INTO gateway.conversations AS c (conversation_key, agent_id, last_seq) VALUES ($1, $2, $3)"
      + " ON CONFLICT (conversation_key) DO UPDATE SET last_seq = c.last_seq + $3"
      + " RETURNING last_seq)"
      + " INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)"
      + " SELECT $1, c.last_seq - $3 + u.ord, u.request_id, u.kind, u.author, u.text, u.payload, u.raw, u.actor, u.at"
      + " FROM c, unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::bytea[], $9::bytea[], $10::uuid[], $11::timestamptz[])"
      + " WITH ORDINALITY AS u(request_id, kind, author, text, payload, raw, actor, at, ord)"
      + " RETURNING seq";

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
    try {
      entries.forEach(this::checkSize);
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
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
    return tx.preparedQuery(APPEND)
      .execute(Tuple.from(new Object[] {conversationKey, agentId, (long) n, requestIds, kinds, authors, texts, payloads, raws, actors, ats}))
      .map(rows -> {
        long min = Long.MAX_VALUE;
        for (Row r : rows) {
          min = Math.min(min, r.getLong("seq"));
        }
        return min;
      });
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
