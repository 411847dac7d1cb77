package dev.conclave.gateway.store;

import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.platform.db.PgErrors;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The mailbox table. Every state change is a conditional update, so concurrent actors (the agent's
 * session, a cancel, a node cleaning up after a dead one) can never end a request twice.
 */
public final class RequestStore {

  private static final SqlFile SQL = SqlFile.of(RequestStore.class, "requests.sql");

  /** {@link #dispatchNext}'s statement (HotStatementPlansTest reads its plan). */
  static final NamedStatement DISPATCH_NEXT = SQL.get("DispatchNext");

  /** A request the caller just ended, with the conversation its terminal event belongs to. */
  public record Ended(UUID id, String agentId, String conversationKey) {
  }

  private final Pool pool;

  public RequestStore(Pool pool) {
    this.pool = pool;
  }

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
    return DISPATCH_NEXT.with("agent_id", agentId).with("epoch", epoch).with("node", node)
      .execute(tx)
      .map(rows -> Rows.first(rows, r -> new Dispatched(map(r), r.getBoolean("more_queued"))));
  }

  /**
   * The request dispatched to the session ({@code agentId}, {@code epoch}, {@code node}) and still in
   * flight, if any. After a {@link #dispatchNext} whose outcome was lost with its connection (the
   * database crashed while committing), this tells whether it committed: a row that nothing sent to
   * the agent would otherwise hold the agent's one in-flight slot until the session ends.
   */
  public Future<Optional<RequestRecord>> dispatchedTo(String agentId, long epoch, String node) {
    return SQL.get("DispatchedTo").with("agent_id", agentId).with("epoch", epoch).with("node", node)
      .execute(pool)
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
    return SQL.get("Requeue").with("id", id).with("epoch", epoch)
      .execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  /** A request this call cancelled, and the state it was in. */
  public record CancelledRequest(RequestState previous, String agentId, String conversationKey) {
  }

  /** Ends a request that is queued or in flight as cancelled; empty when it had already ended. */
  public Future<Optional<CancelledRequest>> cancel(SqlClient tx, UUID id, String reason) {
    return SQL.get("Cancel").with("id", id).with("reason", reason)
      .execute(tx)
      .map(rows -> Rows.first(rows, row -> new CancelledRequest(RequestState.of(row.getString("state")),
        row.getString("agent_id"), row.getString("conversation_key"))));
  }

  /** Records that a cancel was asked of the agent (it will answer with its own terminal event). */
  public Future<Boolean> markCancelRequested(UUID id, String reason) {
    return SQL.get("MarkCancelRequested").with("id", id).with("reason", reason)
      .execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  /**
   * Ends, as errors, the agent's in-flight requests dispatched to sessions older than or equal to
   * {@code epoch}; returns them.
   */
  public Future<List<Ended>> endInFlightOfAgent(SqlClient tx, String agentId, long maxEpoch) {
    return SQL.get("EndInFlightOfAgent").with("agent_id", agentId).with("max_epoch", maxEpoch)
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as an error, one request still in flight on the session {@code epoch}; empty when it is not. */
  public Future<List<Ended>> endInFlight(SqlClient tx, UUID id, long epoch) {
    return SQL.get("EndInFlight").with("id", id).with("epoch", epoch)
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, the agent's queued requests (it was retired and will never take them); returns them. */
  public Future<List<Ended>> endQueuedOfAgent(SqlClient tx, String agentId) {
    return SQL.get("EndQueuedOfAgent").with("agent_id", agentId)
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, every request in flight on a node that is gone; returns them. */
  public Future<List<Ended>> endInFlightOnNode(SqlClient tx, String node) {
    return SQL.get("EndInFlightOnNode").with("node", node)
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** Ends, as errors, every request in flight on a node not among {@code liveNodes}; returns them. */
  public Future<List<Ended>> endInFlightNotOn(SqlClient tx, List<String> liveNodes) {
    return SQL.get("EndInFlightNotOn").with("live_nodes", liveNodes.toArray(new String[0]))
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /**
   * Ends, as errors, requests in flight on {@code node} whose session (agent, epoch) is not among
   * the sessions the node holds: left behind when ending them at close time failed.
   */
  public Future<List<Ended>> endInFlightStrandedOn(SqlClient tx, String node, List<String> agents, List<Long> epochs) {
    return SQL.get("EndInFlightStrandedOn").with("node", node).with("agents", agents.toArray(new String[0]))
      .with("epochs", epochs.toArray(new Long[0]))
      .execute(tx)
      .map(rows -> Rows.all(rows, r -> new Ended(r.getUUID("id"), r.getString("agent_id"), r.getString("conversation_key"))));
  }

  /** From now on, every tool approval of this in-flight request is granted without asking. */
  public Future<Void> setApproveAll(SqlClient tx, UUID id) {
    return SQL.get("SetApproveAll").with("id", id).execute(tx).mapEmpty();
  }

  /** The agent's request in flight, if any (at most one, by the one-in-flight index). */
  public Future<Optional<RequestRecord>> inFlightOf(String agentId) {
    return SQL.get("InFlightOf").with("agent_id", agentId)
      .execute(pool)
      .map(rows -> Rows.first(rows, RequestStore::map));
  }

  /** Every request in flight, by agent id (one per agent at most). */
  public Future<java.util.Map<String, UUID>> allInFlight() {
    return SQL.get("AllInFlight").execute(pool).map(rows -> {
      java.util.Map<String, UUID> out = new java.util.HashMap<>();
      rows.forEach(r -> out.put(r.getString("agent_id"), r.getUUID("id")));
      return out;
    });
  }

  /** The idempotency key a request was sent with (the session protocol keeps its submission ids there). */
  public Future<Optional<String>> idempotencyKey(UUID id) {
    return SQL.get("IdempotencyKey").with("id", id)
      .execute(pool)
      .map(rows -> Rows.first(rows, r -> r.getString("idempotency_key")));
  }

  public Future<Optional<RequestRecord>> find(UUID id) {
    return SQL.get("Find").with("id", id)
      .execute(pool)
      .map(rows -> Rows.first(rows, RequestStore::map));
  }

  public static RequestRecord map(Row r) {
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
