package dev.conclave.platform.secrets;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

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

  private static final SqlFile SQL = SqlFile.of(SecretStore.class, "secrets.sql");

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
    return pool.withTransaction(conn -> SQL.get("LockScope")
      .with("scope_key", "conclave.secrets/" + ref.scope().wire() + "/" + ref.agentId()).execute(conn)
      .compose(locked -> SQL.get("ScopeUsage").with("tag_bytes", SecretBox.TAG_BYTES).with("scope", ref.scope().wire())
        .with("agent_id", ref.agentId()).with("name", ref.name()).execute(conn))
      .compose(usage -> {
        Row others = usage.iterator().next();
        long bytes = others.getLong("bytes") + ref.name().length() + sealed.ciphertext().length - SecretBox.TAG_BYTES;
        if (others.getInteger("n") + 1 > maxCount || bytes > maxBytes) {
          return Future.failedFuture(SecretErrors.limitReached(ref, maxCount, maxBytes));
        }
        return SQL.get("Upsert").with("scope", ref.scope().wire()).with("agent_id", ref.agentId()).with("name", ref.name())
          .with("nonce", Buffer.buffer(sealed.nonce())).with("ciphertext", Buffer.buffer(sealed.ciphertext())).with("updated_by", by)
          .execute(conn)
          .map(rows -> info(ref, rows.iterator().next()));
      }));
  }

  /** Removes a secret; false when there was none. */
  public Future<Boolean> delete(SecretRef ref) {
    return SQL.get("Delete").with("scope", ref.scope().wire()).with("agent_id", ref.agentId()).with("name", ref.name()).execute(pool)
      .map(rows -> rows.rowCount() > 0);
  }

  /** Every secret's metadata (no values): global ones first, then by agent id and name. */
  public Future<List<SecretInfo>> list() {
    return SQL.get("List").execute(pool)
      .map(rows -> {
        List<SecretInfo> out = new ArrayList<>();
        rows.forEach(r -> out.add(info(ref(r), r)));
        return out;
      });
  }

  /** The sealed global secrets and those of {@code agentId}. */
  public Future<List<SealedSecret>> sealedFor(String agentId) {
    return SQL.get("SealedFor").with("agent_id", agentId).execute(pool)
      .map(rows -> {
        List<SealedSecret> out = new ArrayList<>();
        rows.forEach(r -> out.add(new SealedSecret(ref(r), sealed(r))));
        return out;
      });
  }

  /** Stores {@code candidate} as the key check value unless one exists; returns the one stored. */
  public Future<SecretBox.Sealed> keyCheck(SecretBox.Sealed candidate) {
    return SQL.get("OfferKeyCheck").with("nonce", Buffer.buffer(candidate.nonce())).with("ciphertext", Buffer.buffer(candidate.ciphertext()))
      .execute(pool)
      .compose(v -> SQL.get("KeyCheck").execute(pool))
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
