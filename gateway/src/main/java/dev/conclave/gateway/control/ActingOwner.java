package dev.conclave.gateway.control;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.CapabilityGrants;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Who an agent acts as when it uses the admin built-in tools. Checked at every call, from the
 * database as it is now: the agent's principal must hold the {@code admin} capability an admin
 * granted (taking the grant back stops a connected agent's next call), and the agent then acts with
 * the access of its owner, never more: a member's agent sees what that member may act on, an admin's
 * agent everything. An agent without an owner acts as its own principal with no roles: it reaches
 * only its principal's own agents and those granted to that principal.
 */
public final class ActingOwner {

  private static final SqlFile SQL = SqlFile.of(ActingOwner.class, "acting_owner.sql");
  /** How long the acting caller counts as valid; it is made afresh for every call. */
  private static final long CALLER_SECONDS = 600;

  private final Pool pool;

  public ActingOwner(Pool pool) {
    this.pool = pool;
  }

  /** The caller agent {@code agentId} of principal {@code principalId} acts as. */
  public Future<Caller> of(String agentId, Optional<UUID> principalId) {
    return SQL.get("ActingAs").with("agent_id", agentId).with("capability", CapabilityGrants.ADMIN).execute(pool).map(rows -> {
      var it = rows.iterator();
      if (!it.hasNext()) {
        throw new ConclaveException(ErrorKind.NOT_FOUND, "agent_not_found", "no agent '" + agentId + "'");
      }
      Row r = it.next();
      UUID agentPrincipal = r.getUUID("agent_principal_id");
      if (principalId.isPresent() && !principalId.get().equals(agentPrincipal)) {
        throw AuthErrors.noAgentAccess(agentId);
      }
      if (!r.getBoolean("agent_principal_active")) {
        throw AuthErrors.principalNotActive(agentPrincipal.toString(), "not approved");
      }
      if (!r.getBoolean("granted")) {
        throw AuthErrors.capabilityNotGranted(agentId, CapabilityGrants.ADMIN);
      }
      UUID owner = r.getUUID("owner_id");
      Instant until = Instant.now().plusSeconds(CALLER_SECONDS);
      if (owner == null) {
        return new Caller(agentPrincipal, PrincipalType.AGENT, Set.of(), Optional.empty(), until);
      }
      if (!r.getBoolean("owner_active")) {
        throw AuthErrors.principalNotActive(owner.toString(), "not approved");
      }
      PrincipalType type = PrincipalType.of(r.getString("owner_type")).orElseThrow();
      return new Caller(owner, type, new HashSet<>(Arrays.asList(r.getArrayOfStrings("owner_roles"))), Optional.empty(), until);
    });
  }
}
