package dev.conclave.gateway.store;

import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Context injected into agents and what the agents answered. */
public final class InjectionStore {

  private static final SqlFile SQL = SqlFile.of(InjectionStore.class, "injections.sql");

  private final Pool pool;

  public InjectionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordSent(UUID id, String agentId, String content, String priority, Optional<String> source, UUID by) {
    return SQL.get("RecordSent").with("id", id).with("agent_id", agentId).with("content", content).with("priority", priority)
      .with("source", source.orElse(null)).with("created_by", by)
      .execute(pool).mapEmpty();
  }

  public Future<Void> markUndelivered(UUID id, String reason) {
    return SQL.get("MarkUndelivered").with("id", id).with("reason", reason).execute(pool).mapEmpty();
  }

  /** Records the agent's InjectionAck; false when the injection is unknown to this agent. */
  public Future<Boolean> recordAck(UUID id, String agentId, boolean accepted, Optional<String> reason) {
    return SQL.get("RecordAck").with("id", id).with("agent_id", agentId).with("state", accepted ? "accepted" : "rejected")
      .with("reason", reason.orElse(null))
      .execute(pool)
      .map(r -> r.rowCount() == 1);
  }

  public Future<Optional<JsonObject>> find(UUID id) {
    return SQL.get("Find").with("id", id)
      .execute(pool)
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
