package dev.conclave.gateway.store;

import dev.conclave.gateway.model.AgentQuery;
import dev.conclave.gateway.model.Classification;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.RegistryEntry;
import dev.conclave.platform.db.sql.Rows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The registry's view of {@code gateway.agents}: lifecycle state, classification, parent. */
public final class RegistryStore {

  private static final String COLUMNS = "agent_id, principal_id, name, capabilities, lifecycle, lifecycle_since, classification, parent_id, last_seen";
  static final int MAX_RESULTS = 500;

  private final Pool pool;

  public RegistryStore(Pool pool) {
    this.pool = pool;
  }

  /** A new registry entry (RegisterAgent before any stream); false when the id exists. */
  public Future<Boolean> define(String agentId, UUID principalId, String name, List<String> capabilities, LifecycleState state,
                                Optional<Classification> classification, Optional<String> parentId) {
    Classification c = classification.orElse(null);
    return pool.preparedQuery("INSERT INTO gateway.agents (agent_id, principal_id, name, capabilities, instance_id, lifecycle, classification,"
        + " primary_type, domain, capability, role, lifecycle_class, security, parent_id)"
        + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (agent_id) DO NOTHING")
      .execute(Tuple.from(new Object[] {agentId, principalId, name, capabilities.toArray(new String[0]), AgentStore.newInstanceId(), state.id(),
        c == null ? null : c.notation(), c == null ? null : c.primaryType(), c == null ? null : c.domain(), c == null ? null : c.capability(),
        c == null ? null : c.role(), c == null ? null : c.lifecycle(), c == null ? null : c.security(), parentId.orElse(null)}))
      .map(r -> r.rowCount() == 1)
      .recover(err -> dev.conclave.platform.db.PgErrors.uniqueViolation(err, "instance_id")
        ? define(agentId, principalId, name, capabilities, state, classification, parentId) : Future.failedFuture(err));
  }

  public Future<Optional<RegistryEntry>> find(String agentId) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.agents WHERE agent_id = $1")
      .execute(Tuple.of(agentId))
      .map(rows -> Rows.first(rows, RegistryStore::map));
  }

  /** The agent's state, locked for the rest of {@code tx}; empty for an unknown agent. */
  public Future<Optional<LifecycleState>> lockState(SqlClient tx, String agentId) {
    return tx.preparedQuery("SELECT lifecycle FROM gateway.agents WHERE agent_id = $1 FOR UPDATE")
      .execute(Tuple.of(agentId))
      .map(rows -> Rows.first(rows, r -> LifecycleState.parse(r.getString("lifecycle")).orElseThrow()));
  }

  public Future<Void> setState(SqlClient tx, String agentId, LifecycleState state) {
    return tx.preparedQuery("UPDATE gateway.agents SET lifecycle = $2, lifecycle_since = now() WHERE agent_id = $1")
      .execute(Tuple.of(agentId, state.id())).mapEmpty();
  }

  /**
   * The entries matching every field of {@code q} except {@code status} (presence is the caller's
   * to apply), ordered by id, at most {@value #MAX_RESULTS}.
   */
  public Future<List<RegistryEntry>> query(AgentQuery q) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.agents WHERE"
        + " ($1::text IS NULL OR lower(primary_type) = lower($1))"
        + " AND ($2::text IS NULL OR lower(domain) = lower($2))"
        + " AND (cardinality($3::text[]) = 0 OR (capabilities || coalesce(ARRAY[capability], '{}'::text[])) @> $3::text[])"
        + " AND ($4::text IS NULL OR lower(role) = lower($4))"
        + " AND ($5::text IS NULL OR lifecycle = $5)"
        + " AND ($6::text IS NULL OR lower(security) = lower($6))"
        + " AND ($7::text IS NULL OR parent_id = $7)"
        + " ORDER BY agent_id LIMIT " + MAX_RESULTS)
      .execute(Tuple.from(new Object[] {q.primaryType().orElse(null), q.domain().orElse(null), q.capabilities().toArray(new String[0]),
        q.role().orElse(null), q.lifecycle().map(LifecycleState::id).orElse(null), q.security().orElse(null), q.parentId().orElse(null)}))
      .map(rows -> Rows.all(rows, RegistryStore::map));
  }

  static RegistryEntry map(Row r) {
    String classification = r.getString("classification");
    return new RegistryEntry(
      r.getString("agent_id"),
      r.getUUID("principal_id"),
      r.getString("name"),
      Arrays.asList(r.getArrayOfStrings("capabilities")),
      LifecycleState.parse(r.getString("lifecycle")).orElseThrow(),
      r.getOffsetDateTime("lifecycle_since").toInstant(),
      Optional.ofNullable(classification).map(Classification::parse),
      Optional.ofNullable(r.getString("parent_id")),
      r.getOffsetDateTime("last_seen").toInstant());
  }
}
