package dev.conclave.gateway.store;

import dev.conclave.gateway.model.AgentQuery;
import dev.conclave.gateway.model.Classification;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.RegistryEntry;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The registry's view of {@code gateway.agents}: lifecycle state, classification, parent. */
public final class RegistryStore {

  private static final SqlFile SQL = SqlFile.of(RegistryStore.class, "registry.sql");
  /** The most entries a query answers: the {@code LIMIT} of {@code registry.sql}'s Query. */
  static final int MAX_RESULTS = 500;

  private final Pool pool;

  public RegistryStore(Pool pool) {
    this.pool = pool;
  }

  /** A new registry entry (RegisterAgent before any stream); false when the id exists. */
  public Future<Boolean> define(String agentId, UUID principalId, String name, List<String> capabilities, LifecycleState state,
                                Optional<Classification> classification, Optional<String> parentId) {
    Classification c = classification.orElse(null);
    return SQL.get("Define").with("agent_id", agentId).with("principal_id", principalId).with("name", name)
      .with("capabilities", capabilities.toArray(new String[0])).with("instance_id", AgentStore.newInstanceId()).with("lifecycle", state.id())
      .with("classification", c == null ? null : c.notation()).with("primary_type", c == null ? null : c.primaryType())
      .with("domain", c == null ? null : c.domain()).with("capability", c == null ? null : c.capability())
      .with("role", c == null ? null : c.role()).with("lifecycle_class", c == null ? null : c.lifecycle())
      .with("security", c == null ? null : c.security()).with("parent_id", parentId.orElse(null))
      .execute(pool)
      .map(r -> r.rowCount() == 1)
      .recover(err -> dev.conclave.platform.db.PgErrors.uniqueViolation(err, "instance_id")
        ? define(agentId, principalId, name, capabilities, state, classification, parentId) : Future.failedFuture(err));
  }

  public Future<Optional<RegistryEntry>> find(String agentId) {
    return SQL.get("Find").with("agent_id", agentId)
      .execute(pool)
      .map(rows -> Rows.first(rows, RegistryStore::map));
  }

  /** The agent's state, locked for the rest of {@code tx}; empty for an unknown agent. */
  public Future<Optional<LifecycleState>> lockState(SqlClient tx, String agentId) {
    return SQL.get("LockState").with("agent_id", agentId)
      .execute(tx)
      .map(rows -> Rows.first(rows, r -> LifecycleState.parse(r.getString("lifecycle")).orElseThrow()));
  }

  public Future<Void> setState(SqlClient tx, String agentId, LifecycleState state) {
    return SQL.get("SetState").with("agent_id", agentId).with("lifecycle", state.id()).execute(tx).mapEmpty();
  }

  /**
   * The entries matching every field of {@code q} except {@code status} (presence is the caller's
   * to apply), ordered by id, at most {@value #MAX_RESULTS}.
   */
  public Future<List<RegistryEntry>> query(AgentQuery q) {
    return SQL.get("Query").with("primary_type", q.primaryType().orElse(null)).with("domain", q.domain().orElse(null))
      .with("capabilities", q.capabilities().toArray(new String[0])).with("role", q.role().orElse(null))
      .with("lifecycle", q.lifecycle().map(LifecycleState::id).orElse(null)).with("security", q.security().orElse(null))
      .with("parent_id", q.parentId().orElse(null))
      .execute(pool)
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
