package dev.conclave.gateway.store;

import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.platform.db.PgErrors;
import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The mailbox table. Every state change is a conditional update, so concurrent actors (the agent's
 * session, a cancel, a node cleaning up after a dead one) can never end a request twice.
 */
public final class RequestStore {

  static final String COLUMNS = "id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,"
    + " dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context";

  /** A request the caller just ended, with the conversation its terminal event belongs to. */
  public record Ended(UUID id, String agentId, String conversationKey) {
  }

  private final Pool pool;

  public RequestStore(Pool pool) {
    this.pool = pool;
  }

  /** {@link #dispatchNext}: {@code $1} agent, {@code $2} session epoch, {@code $3} node. */
  static final String DISPATCH_NEXT = "UPDATE gateway.requests SET state = 'dispatched', dispatched_at = now(), dispatch_epoch = $2, dispatch_node = $3"
    + " WHERE id = (SELECT id FROM gateway.requests WHERE agent_id = $1 AND state = 'queued' ORDER BY queue_seq LIMIT 1 FOR UPDATE SKIP LOCKED)"
    + " AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = $1 AND state = 'dispatched')"
    + " AND " + takesWork("$1", "$2")
    // (the statement's snapshot still shows the dispatched row as queued: hence id <> requests.id)
    + " RETURNING " + COLUMNS + ", EXISTS (SELECT 1 FROM gateway.requests q WHERE q.agent_id = $1 AND q.state = 'queued'"
    + " AND q.id <> requests.id) AS more_queued";

  /** A request just dispatched, and whether more of the agent's requests wait in the queue behind it. */
  public record Dispatched(RequestRecord request, boolean moreQueued) {
  }

  /**
   * Hands the agent's oldest queued request to the session with {@code epoch} (in the caller's
   * transaction), if that session is still the agent's newest, the agent is Running, and nothing else
   * is in flight (the partial unique index enforces it: see {@link #lostDispatchRace}). Says too
   * whether others stay queued, so the session knows to ask again when this one ends.
   */
  public Future<Optional<Dispatched>> dispatchNext(SqlClient tx, String agentId, long epoch, String node) {
    return tx.preparedQuery(DISPATCH_NEXT)
      .execute(Tuple.of(agentId, epoch, node))
      .map(rows -> Rows.first(rows, r -> new Dispatched(map(r), r.getBoolean("more_queued"))));
  }

  /**
   * SQL that is true when the session with epoch {@code epoch} of agent {@code agent} (SQL
   * expressions) may be handed work: it is the agent's newest session, and the agent is Running
   * (a Paused, Maintaining, Evolving or Retiring agent's mailbox holds its requests). Every dispatch
   * asks this.
   */
  static String takesWork(String agent, String epoch) {
    return "(SELECT epoch = " + epoch + " AND lifecycle = 'running' FROM gateway.agents WHERE agent_id = " + agent + ")";
  }

  /**
   * The request dispatched to the session ({@code agentId}, {@code epoch}, {@code node}) and still in
   * flight, if any. After a {@link #dispatchNext} whose outcome was lost with its connection (the
   * database crashed while committing), this tells whether it committed: a row that nothing sent to
   * the agent would otherwise hold the agent's one in-flight slot until the session ends.
   */
  public Future<Optional<RequestRecord>> dispatchedTo(String agentId, long epoch, String node) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.requests"
        + " WHERE agent_id = $1 AND state = 'dispatched' AND dispatch_epoch = $2 AND dispatch_node = $3")
      .execute(Tuple.of(agentId, epoch, node))
      .map(rows -> Rows.first(rows, RequestStore::map));
  }

  /**
   * Whether a failed {@link #dispatchNext} only lost a race: another session took the agent's one
   * in-flight slot first (the partial unique index refused the second).
   */
  public static boolean lostDispatchRace(Throwable err) {
    return PgErrors.uniqueViolation(err, "requests_one_in_flight");
  }

  /**
   * Puts a dispatched request back in the queue; only for one whose SendMessage was never written
   * to the agent (its session went away while the dispatch query ran), so it is not a redelivery.
   */
  public Future<Boolean> requeue(UUID id, long epoch) {
    return pool.preparedQuery("UPDATE gateway.requests SET state = 'queued', dispatched_at = NULL, dispatch_epoch = NULL, dispatch_node = NULL"
        + " WHERE id = $1 AND state = 'dispatched' AND dispatch_epoch = $2")
      .execute(Tuple.of(id, epoch))
      .map(r -> r.rowCount() == 1);
  }

  /** A request this call cancelled, and the state it was in. */
  public record CancelledRequest(RequestState previous, String agentId, String conversationKey) {
  }

  /** Ends a request that is queued or in flight as cancelled; empty when it had already ended. */
  public Future<Optional<CancelledRequest>> cancel(SqlClient tx, UUID id, String reason) {
    return tx.preparedQuery("UPDATE gateway.requests r SET state = 'cancelled', finished_at = now(), cancel_requested_at = now(), cancel_reason = $2"
        + " FROM (SELECT id, state FROM gateway.requests WHERE id = $1 FOR UPDATE) old"
        + " WHERE r.id = old.id AND old.state IN ('queued', 'dispatched') RETURNING old.state, r.agent_id, r.conversation_key")
      .execute(Tuple.of(id, reason))
      .map(rows -> Rows.first(rows, row -> new CancelledRequest(RequestState.of(row.getString("state")),
        row.getString("agent_id"), row.getString("conversation_key"))));
  }

  /** Records that a cancel was asked of the agent (it will answer with its own terminal event). */
  public Future<Boolean> markCancelRequested(UUID id, String reason) {
    return pool.preparedQuery("UPDATE gateway.requests SET cancel_requested_at = now(), cancel_reason = $2 WHERE id = $1 AND state = 'dispatched'")
      .execute(Tuple.of(id, reason))
      .map(r -> r.rowCount() == 1);
  }

  /**
   * Ends, as errors, the agent's in-flight requests dispatched to sessions older than or equal to
   * {@code epoch}; returns them.
   */
  public Future<List<Ended>> endInFlightOfAgent(SqlClient tx, String agentId, long maxEpoch) {
    return tx.preparedQuery("UPDATE gateway.requests SET state = 'error', finished_at = now()"
        + " WHERE agent_id = $1 AND state = 'dispatched' AND dispatch_epoch <= $2 RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of(agentId, maxEpoch))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as an error, one request still in flight on the session {@code epoch}; empty when it is not. */
  public Future<List<Ended>> endInFlight(SqlClient tx, UUID id, long epoch) {
    return tx.preparedQuery("UPDATE gateway.requests SET state = 'error', finished_at = now()"
        + " WHERE id = $1 AND state = 'dispatched' AND dispatch_epoch = $2 RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of(id, epoch))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, the agent's queued requests (it was retired and will never take them); returns them. */
  public Future<List<Ended>> endQueuedOfAgent(SqlClient tx, String agentId) {
    return tx.preparedQuery("UPDATE gateway.requests SET state = 'error', finished_at = now()"
        + " WHERE agent_id = $1 AND state = 'queued' RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of(agentId))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, every request in flight on a node that is gone; returns them. */
  public Future<List<Ended>> endInFlightOnNode(SqlClient tx, String node) {
    return tx.preparedQuery("UPDATE gateway.requests SET state = 'error', finished_at = now()"
        + " WHERE dispatch_node = $1 AND state = 'dispatched' RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of(node))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, every request in flight on a node not among {@code liveNodes}; returns them. */
  public Future<List<Ended>> endInFlightNotOn(SqlClient tx, List<String> liveNodes) {
    return tx.preparedQuery("UPDATE gateway.requests SET state = 'error', finished_at = now()"
        + " WHERE state = 'dispatched' AND NOT (dispatch_node = ANY ($1)) RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of((Object) liveNodes.toArray(new String[0])))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /**
   * Ends, as errors, requests in flight on {@code node} whose session (agent, epoch) is not among
   * the sessions the node holds: left behind when ending them at close time failed.
   */
  public Future<List<Ended>> endInFlightStrandedOn(SqlClient tx, String node, List<String> agents, List<Long> epochs) {
    return tx.preparedQuery("UPDATE gateway.requests r SET state = 'error', finished_at = now()"
        + " WHERE r.dispatch_node = $1 AND r.state = 'dispatched'"
        // a session that registered after the caller's snapshot may have dispatched just now
        + " AND r.dispatched_at < now() - interval '5 seconds'"
        + " AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::bigint[]) AS s(agent_id, epoch)"
        + " WHERE s.agent_id = r.agent_id AND s.epoch = r.dispatch_epoch)"
        + " RETURNING id, agent_id, conversation_key")
      .execute(Tuple.of(node, agents.toArray(new String[0]), epochs.toArray(new Long[0])))
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** From now on, every tool approval of this in-flight request is granted without asking. */
  public Future<Void> setApproveAll(SqlClient tx, UUID id) {
    return tx.preparedQuery("UPDATE gateway.requests SET approve_all = true WHERE id = $1 AND state = 'dispatched'")
      .execute(Tuple.of(id)).mapEmpty();
  }

  /** The agent's request in flight, if any (at most one, by the one-in-flight index). */
  public Future<Optional<RequestRecord>> inFlightOf(String agentId) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.requests WHERE agent_id = $1 AND state = 'dispatched'")
      .execute(Tuple.of(agentId))
      .map(rows -> Rows.first(rows, RequestStore::map));
  }

  /** Every request in flight, by agent id (one per agent at most). */
  public Future<java.util.Map<String, UUID>> allInFlight() {
    return pool.query("SELECT agent_id, id FROM gateway.requests WHERE state = 'dispatched'").execute().map(rows -> {
      java.util.Map<String, UUID> out = new java.util.HashMap<>();
      rows.forEach(r -> out.put(r.getString("agent_id"), r.getUUID("id")));
      return out;
    });
  }

  /** The idempotency key a request was sent with (the session protocol keeps its submission ids there). */
  public Future<Optional<String>> idempotencyKey(UUID id) {
    return pool.preparedQuery("SELECT idempotency_key FROM gateway.requests WHERE id = $1")
      .execute(Tuple.of(id))
      .map(rows -> Rows.first(rows, r -> r.getString("idempotency_key")));
  }

  public Future<Optional<RequestRecord>> find(UUID id) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.requests WHERE id = $1")
      .execute(Tuple.of(id))
      .map(rows -> Rows.first(rows, RequestStore::map));
  }

  static RequestRecord map(Row r) {
    Buffer attachments = r.getBuffer("attachments");
    return new RequestRecord(
      r.getUUID("id"),
      r.getString("agent_id"),
      r.getString("conversation_key"),
      r.getUUID("principal_id"),
      r.getString("sender"),
      r.getString("content"),
      Optional.ofNullable(attachments).map(Buffer::getBytes),
      RequestState.of(r.getString("state")),
      r.getOffsetDateTime("created_at").toInstant(),
      Optional.ofNullable(Rows.instant(r, "dispatched_at")),
      Optional.ofNullable(r.getLong("dispatch_epoch")),
      Optional.ofNullable(r.getString("dispatch_node")),
      Optional.ofNullable(Rows.instant(r, "finished_at")),
      Optional.ofNullable(r.getString("cancel_reason")),
      r.getBoolean("approve_all"),
      Optional.ofNullable(r.getString("trace_context")));
  }
}
