package dev.conclave.platform.auth;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Capabilities an admin granted to an agent principal ({@code auth.principal_capabilities}). Some
 * capabilities open tools that reach beyond the agent itself ({@link #GRANTABLE}: the built-in admin
 * tools); an agent gets one only when its principal holds the grant and the agent declares it, so
 * what an agent declares narrows its tools and never widens them. Grants are read when an agent
 * registers (its Welcome, its MCP scope) and again each time an admin tool runs.
 */
public final class CapabilityGrants {

  /** The capability of the built-in admin tools ({@code builtin:admin}). */
  public static final String ADMIN = "admin";
  /** Capabilities that only a grant gives; any other capability an agent may declare for itself. */
  public static final Set<String> GRANTABLE = Set.of(ADMIN);

  private static final SqlFile SQL = SqlFile.of(CapabilityGrants.class, "capability_grants.sql");

  /** One grant: what, by whom (empty: with the CLI, on the database's machine), when. */
  public record Grant(String capability, Optional<UUID> grantedBy, Instant grantedAt) {
  }

  private final Pool pool;

  public CapabilityGrants(Pool pool) {
    this.pool = pool;
  }

  /**
   * The capabilities an agent of a principal holding {@code granted} gets when it declares
   * {@code declared}: every declared one that needs no grant, and the declared ones granted.
   */
  public static Set<String> effective(Iterable<String> declared, Set<String> granted) {
    Set<String> out = new LinkedHashSet<>();
    for (String c : declared) {
      if (!GRANTABLE.contains(c) || granted.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * Grants {@code capability} to {@code principal} (which must be an agent principal, not deleted);
   * true when it was not granted before. Fails with {@code capability_not_grantable} or
   * {@code principal_not_found}.
   */
  public Future<Boolean> grant(Principal principal, String capability, Optional<UUID> by) {
    if (!GRANTABLE.contains(capability)) {
      return Future.failedFuture(AuthErrors.capabilityNotGrantable(capability));
    }
    if (principal.type() != PrincipalType.AGENT) {
      return Future.failedFuture(AuthErrors.capabilityOnlyForAgents(principal.id().toString(), principal.type().wire()));
    }
    return SQL.get("Grant").with("principal_id", principal.id()).with("capability", capability).with("granted_by", by.orElse(null))
      .execute(pool).map(r -> r.rowCount() > 0);
  }

  /** Takes a grant back; true when there was one. Admin tools of a connected agent stop at their next call. */
  public Future<Boolean> revoke(UUID principal, String capability) {
    return SQL.get("Revoke").with("principal_id", principal).with("capability", capability).execute(pool).map(r -> r.rowCount() > 0);
  }

  /** Every grant of {@code principal}, by capability. */
  public Future<List<Grant>> list(UUID principal) {
    return SQL.get("List").with("principal_id", principal).execute(pool).map(rows -> {
      List<Grant> out = new ArrayList<>();
      for (Row r : rows) {
        out.add(new Grant(r.getString("capability"), Optional.ofNullable(r.getUUID("granted_by")),
          r.getOffsetDateTime("granted_at").toInstant()));
      }
      return out;
    });
  }

  /** The capabilities granted to {@code principal}. */
  public Future<Set<String>> of(UUID principal) {
    return list(principal).map(grants -> {
      Set<String> out = new LinkedHashSet<>();
      grants.forEach(g -> out.add(g.capability()));
      return out;
    });
  }
}
