package dev.conclave.gateway.store;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.proto.coven.Binding;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Frontend channels bound to agents. */
public final class BindingStore {

  /** The table's bounds (gateway V1 migration): longer values are refused before they reach it. */
  public static final int MAX_FRONTEND = 100;
  public static final int MAX_CHANNEL_ID = 300;
  public static final int MAX_AGENT_ID = 200;

  private static final String COLUMNS = "id, frontend, channel_id, agent_id, created_at, created_by";
  private static final SqlFile SQL = SqlFile.of(BindingStore.class, "bindings.sql");

  private final Pool pool;

  public BindingStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Binding> create(String frontend, String channelId, String agentId, String createdBy) {
    return pool.preparedQuery("INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id, created_by) VALUES ($1, $2, $3, $4, $5)"
        + " ON CONFLICT (frontend, channel_id) DO NOTHING RETURNING " + COLUMNS)
      .execute(Tuple.of(UUID.randomUUID(), frontend, channelId, agentId, createdBy))
      .map(rows -> Rows.first(rows, BindingStore::map).orElseThrow(() -> GatewayErrors.bindingExists(frontend, channelId)));
  }

  /**
   * Binds {@code <frontend>:<channelId>} to {@code agentId}, creating the binding or moving it from
   * the agent it named (a swarm task's conversation follows the task from agent to agent).
   */
  public Future<Void> bindTo(String frontend, String channelId, String agentId, String createdBy) {
    return SQL.get("BindTask").with("id", UUID.randomUUID()).with("frontend", frontend).with("channel_id", channelId)
      .with("agent_id", agentId).with("created_by", createdBy).execute(pool).mapEmpty();
  }

  public Future<Binding> updateAgent(UUID id, String agentId) {
    return pool.preparedQuery("UPDATE gateway.bindings SET agent_id = $2 WHERE id = $1 RETURNING " + COLUMNS)
      .execute(Tuple.of(id, agentId))
      .map(rows -> Rows.first(rows, BindingStore::map).orElseThrow(() -> GatewayErrors.bindingNotFound(id.toString())));
  }

  /** Deletes the binding; the one deleted, empty when there was none. */
  public Future<Optional<Binding>> delete(UUID id) {
    return pool.preparedQuery("DELETE FROM gateway.bindings WHERE id = $1 RETURNING " + COLUMNS).execute(Tuple.of(id))
      .map(rows -> Rows.first(rows, BindingStore::map));
  }

  public Future<List<Binding>> list(Optional<String> frontend, Optional<String> agentId) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.bindings WHERE ($1::text IS NULL OR frontend = $1)"
        + " AND ($2::text IS NULL OR agent_id = $2) ORDER BY frontend, channel_id")
      .execute(Tuple.of(frontend.orElse(null), agentId.orElse(null)))
      .map(rows -> Rows.all(rows, BindingStore::map));
  }

  /** Where a client's message goes, whether that agent is retired, and the sender's display name, found in one round trip. */
  public record Route(Optional<String> agentId, boolean agentRetired, Optional<String> senderName) {
  }

  /**
   * Resolves a conversation key: the agent bound to {@code <frontend>:<channel_id>}, else the
   * known agent whose id is the key.
   */
  public Future<Route> route(String conversationKey, UUID principalId) {
    return pool.preparedQuery("SELECT t.agent, " + Routes.retired("t.agent") + " AS retired,"
        + " (SELECT display_name FROM auth.principals WHERE id = $4) AS sender"
        + " FROM (SELECT " + Routes.agentOf("$1", "$2", "$3") + " AS agent) t")
      .execute(Tuple.of(conversationKey, Routes.frontend(conversationKey).orElse(null), Routes.channel(conversationKey).orElse(null),
        principalId))
      .map(rows -> {
        Row r = rows.iterator().next();
        return new Route(Optional.ofNullable(r.getString("agent")), Boolean.TRUE.equals(r.getBoolean("retired")),
          Optional.ofNullable(r.getString("sender")));
      });
  }

  static Binding map(Row r) {
    Binding.Builder b = Binding.newBuilder()
      .setId(r.getUUID("id").toString())
      .setFrontend(r.getString("frontend"))
      .setChannelId(r.getString("channel_id"))
      .setAgentId(r.getString("agent_id"))
      .setCreatedAt(DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("created_at").toInstant()));
    Optional.ofNullable(r.getString("created_by")).ifPresent(b::setCreatedBy);
    return b.build();
  }
}
