package dev.conclave.gateway.store;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.gateway.model.AgentRecord;
import dev.conclave.platform.db.PgErrors;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.RegisterAgent;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Every agent that ever registered, and its registration epoch. */
public final class AgentStore {

  private static final dev.conclave.platform.db.sql.SqlFile SQL = dev.conclave.platform.db.sql.SqlFile.of(AgentStore.class, "agents.sql");
  private static final char[] CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Pool pool;

  public AgentStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * Records a registration and starts a new epoch: the returned record's epoch is higher than that
   * of every earlier session of this agent. A new agent gets a short, unique instance id. An agent
   * id belongs to the principal that first registered it: another principal gets it (empty result)
   * only with {@code takeOver} (an admin) or once that principal is deleted or no longer approved,
   * decided in the same statement, so two principals racing for a free id cannot both win.
   */
  public Future<Optional<Registered>> register(UUID principalId, RegisterAgent r, boolean takeOver) {
    AgentMetadata m = r.getMetadata();
    // an agent first seen on its stream (no registry entry) enters the registry Running; the
    // lifecycle of an existing entry is the registry's (lifecycle.Lifecycle), never changed here
    return SQL.get("Register")
      .with("agent_id", r.getAgentId()).with("principal_id", principalId).with("name", r.getName())
      .with("capabilities", r.getCapabilitiesList().toArray(new String[0]))
      .with("features", r.getProtocolFeaturesList().toArray(new String[0]))
      .with("workspaces", m.getWorkspacesList().toArray(new String[0]))
      .with("backend", m.getBackend()).with("working_dir", m.getWorkingDirectory())
      .with("metadata", Buffer.buffer(m.toByteArray()))
      .with("instance_id", newInstanceId()).with("take_over", takeOver)
      .execute(pool)
      .map(rows -> Rows.first(rows, row -> new Registered(map(row), Optional.ofNullable(row.getUUID("former_principal_id")))))
      .recover(err -> PgErrors.uniqueViolation(err, "instance_id") ? register(principalId, r, takeOver) : Future.failedFuture(err));
  }

  /** A registration recorded: the agent, and the principal that held its id before, when that was another one. */
  public record Registered(AgentRecord agent, Optional<UUID> formerPrincipal) {
  }

  public Future<Optional<AgentRecord>> find(String agentId) {
    return SQL.get("Find").with("agent_id", agentId)
      .execute(pool)
      .map(rows -> Rows.first(rows, AgentStore::map));
  }

  /** Known agents, optionally only those tagged with a workspace, ordered by id. */
  public Future<List<AgentRecord>> list(Optional<String> workspace) {
    return SQL.get("List").with("workspace", workspace.orElse(null))
      .execute(pool)
      .map(rows -> Rows.all(rows, AgentStore::map));
  }

  /** Records that the agent was seen now (in the caller's transaction). */
  public Future<Void> touch(io.vertx.sqlclient.SqlClient sql, String agentId) {
    return SQL.get("Touch").with("agent_id", agentId).execute(sql).mapEmpty();
  }

  static String newInstanceId() {
    char[] code = new char[6];
    for (int i = 0; i < code.length; i++) {
      code[i] = CODE_ALPHABET[RANDOM.nextInt(CODE_ALPHABET.length)];
    }
    return new String(code);
  }

  static AgentRecord map(Row r) {
    AgentMetadata metadata;
    try {
      Buffer raw = r.getBuffer("metadata");
      metadata = raw == null ? AgentMetadata.getDefaultInstance() : AgentMetadata.parseFrom(raw.getBytes());
    } catch (InvalidProtocolBufferException e) {
      metadata = AgentMetadata.getDefaultInstance();
    }
    return new AgentRecord(
      r.getString("agent_id"),
      r.getUUID("principal_id"),
      r.getString("name"),
      Arrays.asList(r.getArrayOfStrings("capabilities")),
      Arrays.asList(r.getArrayOfStrings("features")),
      metadata,
      r.getString("instance_id"),
      r.getLong("epoch"),
      r.getOffsetDateTime("last_seen").toInstant());
  }
}
