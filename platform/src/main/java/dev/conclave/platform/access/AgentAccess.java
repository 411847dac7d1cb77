package dev.conclave.platform.access;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * The one decision of who may act on an agent: its owner (the member who created or registered the
 * agent's principal), principals granted access to it, the agent's own principal, and admins. Every
 * edge that names an agent (or a conversation, through its agent) asks here. It reads the agent
 * directory ({@code gateway.agents}, agent id to principal) read-only, so that every role and every
 * node decides the same way from the same rows; grants and owners are in schema {@code auth}.
 */
public final class AgentAccess {

  private final Pool pool;

  public AgentAccess(Pool pool) {
    this.pool = pool;
  }

  /** Succeeds when {@code caller} may act on {@code agentId}; otherwise PERMISSION_DENIED (unknown agents included). */
  public Future<Void> require(Caller caller, String agentId) {
    if (caller.isAdmin()) {
      return Future.succeededFuture();
    }
    return pool.preparedQuery("SELECT " + allows("$1", "$2") + " AS allowed")
      .execute(Tuple.of(agentId, caller.principalId()))
      .compose(rows -> rows.iterator().next().getBoolean("allowed")
        ? Future.succeededFuture() : Future.failedFuture(AuthErrors.noAgentAccess(agentId)));
  }

  /**
   * The rule of {@link #require} as SQL, for a statement that checks it as it writes: true when
   * principal {@code principal} may act on agent {@code agent} (SQL expressions), false otherwise
   * (unknown agents included). Admins may act on every agent; that is the caller's to check.
   */
  public static String allows(String agent, String principal) {
    return "COALESCE((SELECT a.principal_id = " + principal + " OR p.owner_id = " + principal
      + " OR EXISTS (SELECT 1 FROM auth.agent_grants g WHERE g.agent_principal_id = a.principal_id AND g.grantee_id = " + principal + ")"
      + " FROM gateway.agents a JOIN auth.principals p ON p.id = a.principal_id WHERE a.agent_id = " + agent + "), false)";
  }

  /** The agent principals {@code caller} may act on (owned or granted); admins see everything, so callers check that first. */
  public Future<Set<UUID>> agentPrincipalsOf(Caller caller) {
    return pool.preparedQuery("SELECT id FROM auth.principals WHERE owner_id = $1 AND deleted_at IS NULL"
        + " UNION SELECT agent_principal_id FROM auth.agent_grants WHERE grantee_id = $1")
      .execute(Tuple.of(caller.principalId()))
      .map(rows -> {
        Set<UUID> out = new HashSet<>();
        for (Row r : rows) {
          out.add(r.getUUID(0));
        }
        out.add(caller.principalId());
        return out;
      });
  }
}
