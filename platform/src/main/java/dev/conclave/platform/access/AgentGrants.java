package dev.conclave.platform.access;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Grants of access to an agent principal's agents, and the owner of an agent principal. */
public final class AgentGrants {

  private static final SqlFile SQL = SqlFile.of(AgentGrants.class, "grants.sql");

  private final Pool pool;

  public AgentGrants(Pool pool) {
    this.pool = pool;
  }

  /** The owner of the principal that registered {@code agentId}, and that principal; empty when the agent is unknown. */
  public Future<Optional<JsonObject>> ownership(String agentId) {
    return SQL.get("Ownership").with("agent_id", agentId).execute(pool)
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
    return SQL.get("Grant").with("agent_principal_id", agentPrincipalId).with("grantee_id", grantee).with("granted_by", by)
      .execute(pool)
      .map(r -> r.rowCount() > 0);
  }

  public Future<Boolean> revoke(UUID agentPrincipalId, UUID grantee) {
    return SQL.get("Revoke").with("agent_principal_id", agentPrincipalId).with("grantee_id", grantee).execute(pool)
      .map(r -> r.rowCount() > 0);
  }

  public Future<JsonArray> list(UUID agentPrincipalId) {
    return SQL.get("List").with("agent_principal_id", agentPrincipalId).execute(pool)
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
