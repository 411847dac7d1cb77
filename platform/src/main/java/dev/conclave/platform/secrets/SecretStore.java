package dev.conclave.platform.secrets;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * PostgreSQL repository of secrets (schema {@code auth}): sealed values only, never plaintext, and
 * the key check value. Every statement is idempotent under retry.
 */
public final class SecretStore {

  /** A stored secret as the database holds it. */
  public record SealedSecret(SecretRef ref, SecretBox.Sealed sealed) {
  }

  private final Pool pool;

  public SecretStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * Inserts or replaces a secret, provided its scope stays within {@code maxCount} names and
   * {@code maxBytes} of names plus values; concurrent writers of one scope are serialized so the
   * limit holds. Returns the stored metadata.
   */
  public Future<SecretInfo> upsert(SecretRef ref, SecretBox.Sealed sealed, UUID by, int maxCount, int maxBytes) {
    return pool.withTransaction(conn -> conn
      .preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
      .execute(Tuple.of("conclave.secrets/" + ref.scope().wire() + "/" + ref.agentId()))
      .compose(locked -> conn.preparedQuery("SELECT count(*)::int AS n, "
          + "coalesce(sum(octet_length(name) + octet_length(ciphertext) - " + SecretBox.TAG_BYTES + "), 0)::bigint AS bytes "
          + "FROM auth.secrets WHERE scope = $1 AND agent_id = $2 AND name <> $3")
        .execute(Tuple.of(ref.scope().wire(), ref.agentId(), ref.name())))
      .compose(usage -> {
        Row others = usage.iterator().next();
        long bytes = others.getLong("bytes") + ref.name().length() + sealed.ciphertext().length - SecretBox.TAG_BYTES;
        if (others.getInteger("n") + 1 > maxCount || bytes > maxBytes) {
          return Future.failedFuture(SecretErrors.limitReached(ref, maxCount, maxBytes));
        }
        return conn.preparedQuery("INSERT INTO auth.secrets (scope, agent_id, name, nonce, ciphertext, updated_at, updated_by) "
            + "VALUES ($1, $2, $3, $4, $5, now(), $6) ON CONFLICT (scope, agent_id, name) DO UPDATE "
            + "SET nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext, updated_at = now(), updated_by = EXCLUDED.updated_by "
            + "RETURNING updated_at, updated_by")
          .execute(Tuple.of(ref.scope().wire(), ref.agentId(), ref.name(), Buffer.buffer(sealed.nonce()),
            Buffer.buffer(sealed.ciphertext()), by))
          .map(rows -> info(ref, rows.iterator().next()));
      }));
  }

  /** Removes a secret; false when there was none. */
  public Future<Boolean> delete(SecretRef ref) {
    return pool.preparedQuery("DELETE FROM auth.secrets WHERE scope = $1 AND agent_id = $2 AND name = $3")
      .execute(Tuple.of(ref.scope().wire(), ref.agentId(), ref.name()))
      .map(rows -> rows.rowCount() > 0);
  }

  /** Every secret's metadata (no values): global ones first, then by agent id and name. */
  public Future<List<SecretInfo>> list() {
    return pool.preparedQuery("SELECT scope, agent_id, name, updated_at, updated_by FROM auth.secrets "
        + "ORDER BY scope = 'agent', agent_id COLLATE \"C\", name COLLATE \"C\"")
      .execute()
      .map(rows -> {
        List<SecretInfo> out = new ArrayList<>();
        rows.forEach(r -> out.add(info(ref(r), r)));
        return out;
      });
  }

  /** The sealed global secrets and those of {@code agentId}. */
  public Future<List<SealedSecret>> sealedFor(String agentId) {
    return pool.preparedQuery("SELECT scope, agent_id, name, nonce, ciphertext FROM auth.secrets "
        + "WHERE (scope = 'global' AND agent_id = '') OR (scope = 'agent' AND agent_id = $1)")
      .execute(Tuple.of(agentId))
      .map(rows -> {
        List<SealedSecret> out = new ArrayList<>();
        rows.forEach(r -> out.add(new SealedSecret(ref(r), sealed(r))));
        return out;
      });
  }

  /** Stores {@code candidate} as the key check value unless one exists; returns the one stored. */
  public Future<SecretBox.Sealed> keyCheck(SecretBox.Sealed candidate) {
    return pool.preparedQuery("INSERT INTO auth.secrets_key_check (id, nonce, ciphertext) VALUES (true, $1, $2) "
        + "ON CONFLICT (id) DO NOTHING")
      .execute(Tuple.of(Buffer.buffer(candidate.nonce()), Buffer.buffer(candidate.ciphertext())))
      .compose(v -> pool.query("SELECT nonce, ciphertext FROM auth.secrets_key_check WHERE id").execute())
      .map(rows -> {
        if (!rows.iterator().hasNext()) {
          throw new IllegalStateException("auth.secrets_key_check is empty right after inserting into it");
        }
        return sealed(rows.iterator().next());
      });
  }

  private static SecretRef ref(Row r) {
    return new SecretRef(SecretScope.of(r.getString("scope")), r.getString("agent_id"), r.getString("name"));
  }

  private static SecretBox.Sealed sealed(Row r) {
    return new SecretBox.Sealed(r.getBuffer("nonce").getBytes(), r.getBuffer("ciphertext").getBytes());
  }

  private static SecretInfo info(SecretRef ref, Row r) {
    Instant at = r.getOffsetDateTime("updated_at").toInstant();
    return new SecretInfo(ref, at, r.getUUID("updated_by"));
  }
}
