package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Context injected into agents and what the agents answered. */
public final class InjectionStore {

  private final Pool pool;

  public InjectionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordSent(UUID id, String agentId, String content, String priority, Optional<String> source, UUID by) {
    return pool.preparedQuery("INSERT INTO gateway.injections (id, agent_id, content, priority, source, state, created_by) VALUES ($1, $2, $3, $4, $5, 'sent', $6)")
      .execute(Tuple.of(id, agentId, content, priority, source.orElse(null), by)).mapEmpty();
  }

  public Future<Void> markUndelivered(UUID id, String reason) {
    return pool.preparedQuery("UPDATE gateway.injections SET state = 'undelivered', reason = $2 WHERE id = $1 AND state = 'sent'")
      .execute(Tuple.of(id, reason)).mapEmpty();
  }

  /** Records the agent's InjectionAck; false when the injection is unknown to this agent. */
  public Future<Boolean> recordAck(UUID id, String agentId, boolean accepted, Optional<String> reason) {
    return pool.preparedQuery("UPDATE gateway.injections SET state = $3, reason = $4, acked_at = now() WHERE id = $1 AND agent_id = $2")
      .execute(Tuple.of(id, agentId, accepted ? "accepted" : "rejected", reason.orElse(null)))
      .map(r -> r.rowCount() == 1);
  }

  public Future<Optional<JsonObject>> find(UUID id) {
    return pool.preparedQuery("SELECT id, agent_id, priority, source, state, reason, created_at, acked_at FROM gateway.injections WHERE id = $1")
      .execute(Tuple.of(id))
      .map(rows -> Rows.first(rows, r -> {
        JsonObject json = new JsonObject()
          .put("injectionId", r.getUUID("id").toString())
          .put("agentId", r.getString("agent_id"))
          .put("priority", r.getString("priority"))
          .put("state", r.getString("state"))
          .put("createdAt", DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("created_at").toInstant()));
        Optional.ofNullable(r.getString("source")).ifPresent(s -> json.put("source", s));
        Optional.ofNullable(r.getString("reason")).ifPresent(s -> json.put("reason", s));
        Optional.ofNullable(Rows.instant(r, "acked_at")).ifPresent(t -> json.put("ackedAt", DateTimeFormatter.ISO_INSTANT.format(t)));
        return json;
      }));
  }
}
