package dev.conclave.platform.access;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Grants of access to an agent principal's agents, and the owner of an agent principal. */
public final class AgentGrants {

  private final Pool pool;

  public AgentGrants(Pool pool) {
    this.pool = pool;
  }

  /** The owner of the principal that registered {@code agentId}, and that principal; empty when the agent is unknown. */
  public Future<Optional<JsonObject>> ownership(String agentId) {
    return pool.preparedQuery("SELECT a.principal_id, p.owner_id FROM gateway.agents a JOIN auth.principals p ON p.id = a.principal_id"
        + " WHERE a.agent_id = $1")
      .execute(Tuple.of(agentId))
      .map(rows -> {
        var it = rows.iterator();
        if (!it.hasNext()) {
          return Optional.empty();
        }
        Row r = it.next();
        JsonObject json = new JsonObject().put("agentId", agentId).put("agentPrincipalId", r.getUUID("principal_id").toString());
        UUID owner = r.getUUID("owner_id");
        json.put("ownerId", owner == null ? null : owner.toString());
        return Optional.of(json);
      });
  }

  public Future<Boolean> grant(UUID agentPrincipalId, UUID grantee, UUID by) {
    return pool.preparedQuery("INSERT INTO auth.agent_grants (agent_principal_id, grantee_id, granted_by) VALUES ($1, $2, $3)"
        + " ON CONFLICT DO NOTHING")
      .execute(Tuple.of(agentPrincipalId, grantee, by))
      .map(r -> r.rowCount() > 0);
  }

  public Future<Boolean> revoke(UUID agentPrincipalId, UUID grantee) {
    return pool.preparedQuery("DELETE FROM auth.agent_grants WHERE agent_principal_id = $1 AND grantee_id = $2")
      .execute(Tuple.of(agentPrincipalId, grantee))
      .map(r -> r.rowCount() > 0);
  }

  public Future<JsonArray> list(UUID agentPrincipalId) {
    return pool.preparedQuery("SELECT grantee_id, granted_by, granted_at FROM auth.agent_grants WHERE agent_principal_id = $1 ORDER BY granted_at")
      .execute(Tuple.of(agentPrincipalId))
      .map(rows -> {
        JsonArray out = new JsonArray();
        for (Row r : rows) {
          out.add(new JsonObject().put("principalId", r.getUUID("grantee_id").toString()).put("grantedBy", r.getUUID("granted_by").toString())
            .put("grantedAt", DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("granted_at").toInstant())));
        }
        return out;
      });
  }
}
