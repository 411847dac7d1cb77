package dev.conclave.gateway.store;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.proto.coven.Binding;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

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

  private static final SqlFile SQL = SqlFile.of(BindingStore.class, "bindings.sql");

  private final Pool pool;

  public BindingStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Binding> create(String frontend, String channelId, String agentId, String createdBy) {
    return SQL.get("Create").with("id", UUID.randomUUID()).with("frontend", frontend).with("channel_id", channelId)
      .with("agent_id", agentId).with("created_by", createdBy)
      .execute(pool)
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
    return SQL.get("UpdateAgent").with("id", id).with("agent_id", agentId)
      .execute(pool)
      .map(rows -> Rows.first(rows, BindingStore::map).orElseThrow(() -> GatewayErrors.bindingNotFound(id.toString())));
  }

  /** Deletes the binding; the one deleted, empty when there was none. */
  public Future<Optional<Binding>> delete(UUID id) {
    return SQL.get("Delete").with("id", id).execute(pool)
      .map(rows -> Rows.first(rows, BindingStore::map));
  }

  public Future<List<Binding>> list(Optional<String> frontend, Optional<String> agentId) {
    return SQL.get("List").with("frontend", frontend.orElse(null)).with("agent_id", agentId.orElse(null))
      .execute(pool)
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
    return SQL.get("Route").with("conversation_key", conversationKey).with("frontend", Routes.frontend(conversationKey).orElse(null))
      .with("channel", Routes.channel(conversationKey).orElse(null)).with("principal_id", principalId)
      .execute(pool)
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
